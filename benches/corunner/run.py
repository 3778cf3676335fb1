#!/usr/bin/env python3
"""The X-ray chain beside a co-runner: the thesis' Chapter 4 on a real chain
(benches/corunner/README.md).

The chain runs on core 0, one thread; a memory-bandwidth hog (`ssc
throttle hammer`, reading a 64 MiB buffer) runs on core 1. Three
conditions: the chain alone, beside the hog, and beside the hog under
`ssc throttle` in its fixed duty mode (this machine has no bandwidth
counters: the sensor is a replayed constant trace above the threshold, so
the monitor suspends the hog for --suspend-us after every --interval-us it
runs: 100/900 µs, a 10 % duty). The programs: ssc's chain (--config, one
thread pinned to core 0) and every Halide schedule of benches/peers with
strict_float (Mullapudi2016, Adams2019, Li2018 and the hand-written strip
schedule `manual`, HL_NUM_THREADS=1) when its venv is there, all built by
benches/peers/run.py's builders and reading the same phantom frames from
memory (`--input NAME=PATH`). Runs are interleaved by round (each round:
every condition, every program); each prints ssc's report (mean, σ, p99.9,
max) and ssc's checksum, which every program must share (exit 1 if not).

    python3 benches/corunner/run.py [--ssc target/release/ssc] [--rounds 3]
        [--iterations 1000] [--resolution 512] [--json OUT]
"""

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT / "benches" / "peers"))
import run as peers  # noqa: E402  (benches/peers/run.py: builders, frames, pooling)

CHAIN = "xray"
CHAIN_CORE, HOG_CORE = "0", "1"
CONDITIONS = ("alone", "hog", "hog+throttle")


def build_programs(a, ssc, build, frames):
    """ssc's chain on one pinned thread, and every Halide schedule with
    strict_float (bit-exact with ssc)."""
    desc = peers.scaled_description(CHAIN, a.resolution, build)
    prog = peers.build_ssc(ssc, CHAIN, desc, a.config, a.resolution, build, 0, None, frames)
    progs = [prog]
    progs += peers.build_halide(a.halide_python, CHAIN, a.resolution, build, frames,
                                strict_only=True)
    for p in progs[1:]:
        p["name"] += " (HL_NUM_THREADS=1)"
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
    if rep["iterations"] != a.iterations:
        peers.die(f"{prog['name']}: {rep['iterations']} of {a.iterations} iterations")
    lat = rep["latency_us"]
    res = {k: lat[k] for k in ("count", "mean", "stddev", "p99_9", "max")}
    res["checksum"] = rep["checksum"]
    return res


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


def closer(alone, hog, thr):
    """Whether the throttled p99.9 is closer to alone's than the hog's is."""
    return abs(thr - alone) < abs(hog - alone)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ssc", default=None,
                    help="the ssc binary (default: target/release/ssc of this checkout)")
    ap.add_argument("--config", default="-ts fused 1 -cm 0 -ca",
                    help="ssc build flags of the chain (one thread, core 0)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--resolution", type=int, default=512)
    ap.add_argument("--frames", type=int, default=16,
                    help="distinct phantom frames in memory; iteration i takes frame i mod this")
    ap.add_argument("--halide-python", default=os.environ.get(
        "HALIDE_PYTHON", "/work/venv-halide/bin/python"))
    ap.add_argument("--numpy-python", default=os.environ.get(
        "NUMPY_PYTHON", str(Path.home() / ".cache/ssc/venv-numpy/bin/python")),
        help="a python with numpy, for tests/fluoro/reference.py make")
    ap.add_argument("--build-dir", default=None, help="default target/corunner/R")
    ap.add_argument("--json", help="write every run's numbers here")
    a = ap.parse_args()
    R = a.resolution
    if R < 16 or R % 8:
        peers.die("the resolution must be a multiple of 8")
    a.ssc = str(peers.ssc_binary(a.ssc))
    build = Path(a.build_dir or ROOT / "target" / "corunner" / str(R)).resolve()
    build.mkdir(parents=True, exist_ok=True)
    frames = peers.make_frames(a.numpy_python, R, a.frames, build)
    progs = build_programs(a, a.ssc, build, frames)
    trace = build / "constant.csv"
    # A hog that never stops, as counters would see it: far above the
    # threshold in every interval.
    trace.write_text("t_us,core,read_bytes,write_bytes\n"
                     f"1000,{HOG_CORE},10000000,0\n")
    env = dict(os.environ, HL_NUM_THREADS="1")
    load_before = os.getloadavg()
    print(f"{len(progs)} programs, xray at {R}x{R} ({a.frames} frames in memory), "
          f"{a.rounds} rounds of {a.iterations} frames, interleaved; load average before: "
          f"{peers.fmt_load(load_before)}", flush=True)
    t0 = time.monotonic()
    runs = {(p["name"], c): [] for p in progs for c in CONDITIONS}
    for r in range(a.rounds):
        for cond in CONDITIONS:
            for p in progs:
                res = once(p, cond, a, env, trace)
                runs[(p["name"], cond)].append(res)
                print(f"round {r + 1} {p['name']:<44} {cond:<13} mean {res['mean']:9.1f}  "
                      f"sd {res['stddev']:8.1f}  p99.9 {res['p99_9']:9.1f}  "
                      f"max {res['max']:9.1f} us  hog {res.get('hog_GBps', 0):.2f} GB/s  "
                      f"load {res['load']:.1f}", flush=True)
    seconds = time.monotonic() - t0
    load_after = os.getloadavg()
    print(f"{seconds:.0f} s; load average after: {peers.fmt_load(load_after)}")

    sums = {(n, x["checksum"]) for (n, _), rs in runs.items() for x in rs}
    if len({c for _, c in sums}) != 1:
        peers.die("CHECKSUMS DIFFER:\n" + "\n".join(f"  {c}  {n}" for n, c in sorted(sums)))
    checksum = next(iter(sums))[1]

    # Over the rounds: mean and σ pooled over every frame, p99.9 and max the
    # highest of the rounds (as benches/peers/run.py).
    summary = {}
    print("\n| program | condition | mean (µs) | σ (µs) | p99.9 (µs) | max (µs) | hog GB/s |")
    print("|---|---|---|---|---|---|---|")
    for p in progs:
        for cond in CONDITIONS:
            rs = runs[(p["name"], cond)]
            st = peers.pooled([{"latency_us": x} for x in rs])
            hog = [x["hog_GBps"] for x in rs if "hog_GBps" in x]
            st["hog_GBps"] = sum(hog) / len(hog) if hog else None
            summary[f"{p['name']} / {cond}"] = st
            print(f"| {p['name']} | {cond} | {st['mean']:.0f} | {st['sd']:.0f} | "
                  f"{st['p99_9']:.0f} | {st['max']:.0f} | "
                  + (f"{st['hog_GBps']:.2f}" if hog else "—") + " |")
    pairs = {"rounds": [0, 0], "run": [0, 0]}
    print("\np99.9 under the hog, throttled closer to alone than unthrottled?")
    for p in progs:
        n = p["name"]
        per_round = [closer(*(runs[(n, c)][r]["p99_9"] for c in CONDITIONS))
                     for r in range(a.rounds)]
        whole = closer(*(summary[f"{n} / {c}"]["p99_9"] for c in CONDITIONS))
        pairs["rounds"][0] += sum(per_round)
        pairs["rounds"][1] += len(per_round)
        pairs["run"][0] += whole
        pairs["run"][1] += 1
        print(f"  {n}: run {'yes' if whole else 'no'}; rounds "
              + " ".join("yes" if x else "no" for x in per_round))
    print(f"closer: {pairs['run'][0]} of {pairs['run'][1]} programs (over the rounds), "
          f"{pairs['rounds'][0]} of {pairs['rounds'][1]} rounds; every program printed {checksum}")
    if a.json:
        Path(a.json).write_text(json.dumps({
            "resolution": R, "rounds": a.rounds, "iterations": a.iterations,
            "frames": a.frames, "config": a.config, "checksum": checksum,
            "load_before": load_before, "load_after": load_after, "seconds": seconds,
            "programs": [{"name": p["name"], "cmd": p["cmd"]} for p in progs],
            "summary": summary, "closer_pairs": pairs,
            "runs": {f"{k[0]} / {k[1]}": v for k, v in runs.items()}}, indent=1))


if __name__ == "__main__":
    main()
