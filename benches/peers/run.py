#!/usr/bin/env python3
"""run.py — ssc's X-ray chain beside what users would write instead.

Builds the ssc configurations (each a string of `ssc build` flags), the
OpenMP peer (xray_omp.c) and, when the Halide venv exists, the two Halide
peers (Mullapudi2016 autoscheduler, compute_root); runs everything
interleaved (round robin over the programs, --repeat rounds of --iterations
frames each); checks that every run printed the same checksum (exit 1 if
not); prints one Markdown table.

    python3 benches/peers/run.py                       # 512, the 3 default configs
    python3 benches/peers/run.py --resolution 1024 --repeat 5 --iterations 500
    python3 benches/peers/run.py --configs "-ts reduced 2 -ms reuse" "-ts simple -ms naive"
    git worktree add ../ssc-old faa2c1d      # ssc as it was on another day
    python3 benches/peers/run.py --baseline ../ssc-old \
        --baseline-configs "-ts reduced 2 -ms interference -gw" --configs "-ts fused 2"

A baseline is another checkout of ssc (a git worktree at an older commit):
run.py builds its compiler (cargo build --release there, with its own
target directory), scales *its* examples/xray.ssc, builds the
--baseline-configs with it and runs them interleaved with everything else,
labelled `ssc@COMMIT`; their checksums must match like every other
program's. Its generated programs are compiled as that ssc compiled them
(--ssc-cflags applies to today's ssc only).

Resolution: examples/xray.ssc composes at [512, 512] with explicit
sub-resolutions [256, 256] and [128, 128], which `-cr` does not scale (ssc
rejects `-cr 1024,1024` on it with E010). So at a resolution R other than
512 the description is copied into the build directory with every
resolution scaled by R/512 (as tests/support's small_xray does), and ssc
also gets `-cr R,R`. The peers take R and use R/2 and R/4.

Columns: mean and σ over all frames of all rounds (σ pooled exactly from
the rounds' means and σs, so rounds with different means widen it; --json
also gives every round's mean, σ, p99.9 and max), p99.9 and max the
highest over the rounds (with fewer than 1000 frames a round, a round's
p99.9 is its max), memory the
bytes of buffers: ssc the arenas of the generated program (its memory
schedule), the peers the bytes they report (OpenMP: its 18 frame buffers;
Halide: its 3 output buffers + the peak of halide_malloc).
"""

import argparse
import json
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DEFAULT_CONFIGS = ["-ts simple -ms naive", "-ts reduced 2 -ms interference",
                   "-ts fixed 2 -ms interference", "-ts fused 2"]
OMP_FLAGS = ["-std=c11", "-O3", "-march=native", "-fopenmp"]
THREADS = "2"
RT_PERIOD_S = 1.0  # /proc/sys/kernel/sched_rt_period_us, Linux's default
RT_RUNTIME_S = 0.95  # sched_rt_runtime_us: what SCHED_FIFO may use of it


def die(msg):
    print(f"run.py: {msg}", file=sys.stderr)
    sys.exit(1)


def sh(cmd, **kw):
    """Runs cmd; on failure prints it with its output and exits."""
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        die(f"`{shlex.join(str(c) for c in cmd)}` exited {r.returncode}:\n{r.stdout}{r.stderr}")
    return r


def scaled_description(resolution, build, root=ROOT):
    """root's examples/xray.ssc, or a copy with every resolution scaled by R/512."""
    src = root / "examples" / "xray.ssc"
    if resolution == 512:
        return src
    text = src.read_text()
    instance = re.compile(r"\[(\d+), (\d+)\]")

    def scale(m):
        w, h = int(m.group(1)), int(m.group(2))
        return f"[{w * resolution // 512}, {h * resolution // 512}]"

    # Only the resolutions: instances (`NAME TYPE [w, h]`) and `compose`,
    # not `mul [2, 2]` or the window `[3, 3]` of the declarations.
    out = []
    for line in text.splitlines(keepends=True):
        if "container_declaration" in line or "mul [" in line:
            out.append(line)
        else:
            out.append(instance.sub(scale, line))
    build.mkdir(parents=True, exist_ok=True)
    path = build / "xray.ssc"
    path.write_text("".join(out))
    return path


def ssc_binary(root=ROOT, always=False):
    """root's target/release/ssc, built when missing (always: built anyway,
    for a baseline checkout whose binary may be stale)."""
    exe = root / "target" / "release" / "ssc"
    if always or not exe.exists():
        print(f"run.py: cargo build --release in {root}", file=sys.stderr)
        sh(["cargo", "build", "--release"], cwd=root)
    return exe


def commit_of(root):
    r = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"],
                       capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else root.name


def arena_bytes(cfile):
    """Bytes of every arena the generated program maps."""
    return sum(int(n) for n in
               re.findall(r"ssc_arena_init\(&\w+,\s*(\d+)", cfile.read_text()))


def build_ssc(ssc, desc, flags, resolution, build, index, cflags, label="ssc"):
    d = build / f"{label.replace('@', '-')}{index}"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    exe = d / "xray"
    args = shlex.split(flags) + ["-cr", f"{resolution},{resolution}"]
    env = dict(os.environ)
    if cflags is not None:
        env["CFLAGS"] = cflags
    sh([ssc, "build", desc, *args, "-od", d, "-o", exe], env=env)
    (d / "config").write_text(f"{label} {flags}\n")  # the name spikes.py shows
    cfiles = [c for c in d.glob("*.c") if not c.name.startswith("ssc_")]
    memory = sum(arena_bytes(c) for c in cfiles)
    return {"name": f"{label} {flags}", "cmd": [str(exe)], "memory": memory}


def build_omp(build):
    exe = build / "xray_omp"
    r = subprocess.run(["gcc", *OMP_FLAGS, "-Wall", "-Wextra", "-o", exe,
                        HERE / "xray_omp.c", "-lm"], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"run.py: OpenMP peer skipped: gcc -fopenmp failed:\n{r.stderr}", file=sys.stderr)
        return None
    return {"name": "OpenMP (gcc " + " ".join(OMP_FLAGS) + ")", "cmd": [str(exe)]}


def build_halide(python, resolution, build):
    if not Path(python).exists():
        print(f"run.py: Halide skipped: no venv python at {python} (see README.md)")
        return []
    r = subprocess.run([python, "-c", "import halide, os; print(os.path.dirname(halide.__file__))"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(f"run.py: Halide skipped: {python} cannot import halide:\n{r.stderr}")
        return []
    include = Path(r.stdout.strip()) / "include"
    progs = []
    for schedule, label in (("auto", "Halide Mullapudi2016"), ("root", "Halide compute_root")):
        name = f"xray_halide_{schedule}"
        sh([python, HERE / "xray_halide.py", "--schedule", schedule,
            "--resolution", str(resolution), "--out", build])
        exe = build / name
        sh(["gcc", "-std=c11", "-O3", "-march=native", "-Wall", "-Wextra", "-I", include, "-I", build,
            f"-DPIPELINE={name}", f'-DPIPELINE_HEADER="{name}.h"', "-o", exe,
            HERE / "xray_halide_driver.c", build / f"{name}.a", "-lm", "-lpthread", "-ldl"])
        progs.append({"name": label, "cmd": [str(exe)]})
    return progs


def program_env():
    """The environment every program runs in: 2 threads for every peer."""
    return dict(os.environ, OMP_NUM_THREADS=THREADS, HL_NUM_THREADS=THREADS)


def rt_rest():
    """Linux lets SCHED_FIFO tasks run 0.95 s of each 1 s period, then
    pauses them for the rest of it. Back to back, programs would share one
    budget and whichever ran at its end would be paused (50 ms frames): a
    period of rest starts the next run on a fresh one, so a run shorter
    than 0.95 s is never paused."""
    time.sleep(RT_PERIOD_S)


def run_once(prog, resolution, iterations, env, chrt=None):
    cmd = prog["cmd"] + ["--iterations", str(iterations), "--json"]
    if not prog["name"].startswith("ssc"):  # ssc and ssc@COMMIT know their resolution
        cmd += ["--resolution", str(resolution)]
    if chrt is not None:
        # Every program alike: its threads inherit the policy (pthreads,
        # OpenMP and Halide's pool all create theirs with inherited
        # scheduling), as a real-time system would run any of them.
        cmd = ["chrt", "-f", str(chrt)] + cmd
        rt_rest()
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.monotonic() - t0
    if r.returncode != 0:
        die(f"{prog['name']}: `{shlex.join(cmd)}` exited {r.returncode}:\n{r.stdout}{r.stderr}")
    report = json.loads(r.stdout)
    report["wall_s"] = wall
    if report["iterations"] != iterations:
        die(f"{prog['name']}: {report['iterations']} of {iterations} iterations")
    return report


def fmt_load(load):
    return "unknown" if load is None else " ".join(f"{v:.2f}" for v in load)


def pooled(runs):
    """Mean, σ (exact over all frames), the highest p99.9 and max."""
    n = [r["latency_us"]["count"] for r in runs]
    m = [r["latency_us"]["mean"] for r in runs]
    s = [r["latency_us"]["stddev"] for r in runs]
    total = sum(n)
    mean = sum(ni * mi for ni, mi in zip(n, m)) / total
    ss = sum((ni - 1) * si * si + ni * (mi - mean) ** 2 for ni, mi, si in zip(n, m, s))
    sd = math.sqrt(ss / (total - 1)) if total > 1 else 0.0
    return {"frames": total, "mean": mean, "sd": sd,
            "p99_9": max(r["latency_us"]["p99_9"] for r in runs),
            "max": max(r["latency_us"]["max"] for r in runs)}


def main():
    ap = argparse.ArgumentParser(description="ssc's X-ray chain beside OpenMP and Halide peers")
    ap.add_argument("configs_pos", nargs="*", metavar="CONFIG",
                    help="ssc configurations (strings of `ssc build` flags)")
    ap.add_argument("--configs", nargs="+", default=None, help="as CONFIG")
    ap.add_argument("--resolution", type=int, default=512, help="512 or 1024 (any multiple of 4)")
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true", help="the results as JSON instead")
    ap.add_argument("--ssc-cflags", default=None,
                    help="CFLAGS for ssc's C compile (default: ssc's own, -O3 -march=native)")
    ap.add_argument("--halide-python", default=os.environ.get(
        "HALIDE_PYTHON", "/work/venv-halide/bin/python"))
    ap.add_argument("--build-dir", default=None, help="default target/peers/R")
    ap.add_argument("--baseline", default=None, metavar="DIR",
                    help="another checkout of ssc (e.g. a git worktree at an older commit)")
    ap.add_argument("--baseline-configs", nargs="+",
                    default=["-ts reduced 2 -ms interference -gw"],
                    help="configurations built with the baseline's ssc")
    ap.add_argument("--chrt", type=int, default=None, metavar="PRIO",
                    help="run every program SCHED_FIFO at PRIO (chrt -f PRIO), as a real-time system would")
    a = ap.parse_args()
    configs = (a.configs or []) + a.configs_pos or DEFAULT_CONFIGS
    R = a.resolution
    if R < 8 or R % 4:
        die("the resolution must be a multiple of 4")
    build = Path(a.build_dir or ROOT / "target" / "peers" / str(R)).resolve()
    build.mkdir(parents=True, exist_ok=True)

    log = sys.stderr if a.json else sys.stdout
    ssc = ssc_binary()
    desc = scaled_description(R, build)
    progs = [build_ssc(ssc, desc, c, R, build, i, a.ssc_cflags) for i, c in enumerate(configs)]
    if a.baseline:
        base = Path(a.baseline).resolve()
        if not (base / "Cargo.toml").exists():
            die(f"--baseline {base}: not a checkout of ssc (no Cargo.toml)")
        label = f"ssc@{commit_of(base)}"
        old_ssc = ssc_binary(base, always=True)
        old_desc = scaled_description(R, build / "baseline", base)
        progs += [build_ssc(old_ssc, old_desc, c, R, build, i, None, label)
                  for i, c in enumerate(a.baseline_configs)]
    omp = build_omp(build)
    if omp:
        progs.append(omp)
    progs += build_halide(a.halide_python, R, build)

    env = program_env()
    try:
        load = os.getloadavg()
    except OSError:
        load = None
    if a.chrt is not None and shutil.which("chrt") is None:
        die("--chrt needs chrt (util-linux)")
    policy = "" if a.chrt is None else f", every program SCHED_FIFO {a.chrt} (chrt)"
    print(f"{len(progs)} programs at {R}x{R}, {a.repeat} rounds of {a.iterations} frames, "
          f"interleaved{policy}; load average before: {fmt_load(load)}", file=log)
    runs = {p["name"]: [] for p in progs}
    for k in range(a.repeat):
        for p in progs:
            runs[p["name"]].append(run_once(p, R, a.iterations, env, a.chrt))
        print(f"  round {k + 1}/{a.repeat} done", file=log)

    try:
        load_after = os.getloadavg()
    except OSError:
        load_after = None
    print(f"load average after: {fmt_load(load_after)}", file=log)

    if a.chrt is not None:
        for p in progs:
            long = max(r["wall_s"] for r in runs[p["name"]])
            if long > RT_RUNTIME_S:
                print(f"note: {p['name']}: a run took {long:.2f} s, more than the {RT_RUNTIME_S} s "
                      f"Linux lets SCHED_FIFO run a second: it was paused (RT throttling); "
                      f"compare it with fewer --iterations", file=log)
    sums = {(p["name"], r["checksum"]) for p in progs for r in runs[p["name"]]}
    if len({c for _, c in sums}) != 1:
        lines = "\n".join(f"  {c}  {n}" for n, c in sorted(sums))
        die(f"CHECKSUMS DIFFER:\n{lines}")
    checksum = next(iter(sums))[1]

    rows = []
    for p in progs:
        st = pooled(runs[p["name"]])
        mem = p.get("memory", runs[p["name"]][0].get("memory_bytes"))
        rounds = [{k: r["latency_us"][k] for k in ("mean", "stddev", "p99_9", "max")}
                  for r in runs[p["name"]]]
        rows.append({"program": p["name"], **st, "memory_bytes": mem,
                     "threads": runs[p["name"]][0].get("threads"), "rounds": rounds})
    best = min(r["mean"] for r in rows)
    for r in rows:
        r["ratio"] = r["mean"] / best

    if a.json:
        print(json.dumps({"resolution": R, "iterations": a.iterations, "repeat": a.repeat,
                          "chrt": a.chrt,
                          "checksum": checksum, "load_before": load, "load_after": load_after,
                          "rows": rows}, indent=1))
        return
    print(f"\nevery run printed checksum {checksum}\n")
    print("| program | mean µs | σ µs | p99.9 µs | max µs | memory bytes | mean / best |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['program']} | {r['mean']:.1f} | {r['sd']:.1f} | {r['p99_9']:.1f} | "
              f"{r['max']:.1f} | {r['memory_bytes']} | {r['ratio']:.2f} |")


if __name__ == "__main__":
    main()
