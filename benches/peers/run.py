#!/usr/bin/env python3
"""run.py — ssc's X-ray and fluoroscopy chains beside their peers at their
strongest (OpenMP and Halide), like for like, and the roofline.

For each chain (examples/xray.ssc, examples/fluoro.ssc) at R x R (default
1024; R a compile-time constant for every peer that can have one):

  * ssc configurations (strings of `ssc build` flags; default `-ts fused 2`
    and `-ts reduced 2 -ms interference`), run on real frames with
    `--input` (tests/fluoro/reference.py's phantom: a folder of 16-bit raw
    frames, a dark frame, a gain map; xray reads the dark frame as its
    offset and the gain map as its gainmap);
  * OpenMP: fork-join per box (xray_omp.c, fluoro_omp.c) and strip-fused
    (xray_omp_fused.c, fluoro_omp_fused.c);
  * Halide (halide_chains.py + halide_driver.c, when the venv exists): the
    Mullapudi2016, Adams2019 and Li2018 autoschedulers, a hand-written
    three-pass strip schedule and the one-pass `expert` strip schedule at
    four strip heights (32, 64, 128, 256 rows), each with strict_float
    (bit-exact with ssc) and without (`nsf`: the checksum may differ);

all reading the same frames, preloaded, and folding ssc's checksum in the
timed region. Everything runs interleaved (round robin over every program
of both chains, --rounds rounds of --iterations frames, every other round
in the reverse order, so that no program always runs first or after the
same neighbour, and a slow period of the host falls on both ends of the
list alike); every program but
the `nsf` ones and ssc's `--contract`/`--reciprocal` configurations must
print the chain's one checksum, and those with the same of these flags one
of their own (exit 1 if not).

Roofline (roofline.c, measured first on 2 threads): max(bytes that must
cross DRAM per frame / STREAM bandwidth, float operations per frame /
vector add+mul throughput); the counts are in CHAINS below.

    python3 benches/peers/run.py                          # 1024, 3 rounds x 300 frames
    python3 benches/peers/run.py --ssc /path/to/ssc --rounds 3 --iterations 300
    python3 benches/peers/run.py --chains fluoro --configs "-ts fused 2"

--ssc PATH: the compiler (default: this checkout's target/release/ssc,
built with cargo when missing; else `ssc` on PATH).

A baseline (--baseline DIR, xray only) is another checkout of ssc: its
compiler is built there, its examples/xray.ssc scaled and built with
--baseline-configs, labelled `ssc@COMMIT`, checked like the rest.

Columns: mean and σ over all frames of all rounds (σ pooled exactly from
the rounds' means and σs), p99.9 and max the highest over the rounds,
mean / roofline, mean / the best ssc configuration's mean, memory the
bytes of buffers (ssc: its arenas; peers: what they report).
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
DEFAULT_CONFIGS = ["-ts fused 2", "-ts reduced 2 -ms interference"]
OMP_FLAGS = ["-std=c11", "-O3", "-march=native", "-fopenmp"]
# The fused peers add -fno-trapping-math: gcc vectorises floorf (the
# archive's and display's round) only with it; it changes no value.
OMP_FUSED_FLAGS = OMP_FLAGS + ["-fno-trapping-math"]
THREADS = "2"
RT_PERIOD_S = 1.0  # /proc/sys/kernel/sched_rt_period_us, Linux's default
RT_RUNTIME_S = 0.95  # sched_rt_runtime_us: what SCHED_FIFO may use of it
# ssc's flags that give up a rounding (docs/language.md, "Contraction",
# "Reciprocals"): a configuration with any is held to the checksum of the
# configurations with the same ones, not to the strict one.
RELAXING = ("--contract", "--reciprocal")
HALIDE_SCHEDULES = [("mullapudi", "Mullapudi2016"), ("adams", "Adams2019"),
                    ("li", "Li2018"), ("manual", "manual strips")] + [
    (f"expert{S}", f"expert, {S}-row strips") for S in (32, 64, 128, 256)]


def xray_work(R):
    """Bytes that must cross DRAM and float operations, per frame.
    Operations per output element of each box (a conversion, add, sub, mul,
    div, min, max, floor each 1): subtract 3 (cvt, sub, max), multiply 1,
    median3x3 18 (the cheapest exact form: each column of 3 sorted, 6
    min/max, shared; then max of 3 minima 2, min of 3 maxima 2, median of
    the middles 4, median of those three 4), gauss3x3 7 (rows (a + 2b) + c:
    3; columns the same and / 16: 4), down2 4, up2 4.5 (x pass 3 on half
    the output elements, y pass 3), merge 3, window 4 (sub, div, max,
    min), archive 6 (mul, add, floor, max, min, cvt)."""
    N, Hn, Qn = R * R, (R // 2) ** 2, (R // 4) ** 2
    ops = (N * (3 + 1 + 18 + 7 + 4.5 + 3 + 4 + 6)           # full resolution
           + Hn * (4 + 7 + 4.5 + 3 + 4)                     # down1 nr1 up2 merge1 preview
           + Qn * (4 + 7))                                  # down2 nr2
    inputs = N * (2 + 4 + 4)             # raw u16, offset f32, gainmap f32
    outputs = N * (4 + 2) + Hn * 4       # display f32, store u16, monitor f32
    return inputs + outputs, ops


def fluoro_work(R):
    """As xray_work: correct 5 (2 cvt, sub, max, mul), gauss5 15 (rows
    4 adds + 3 muls; columns the same and / 256), subtract 1, down2 4,
    boost1 2 (mul, add), boost0 4 (max, min, mul, add), to_archive 5 (add,
    floor, max, min, cvt), to_display 7 (sub, div, add, floor, max, min,
    cvt)."""
    N, Hn, Qn = R * R, (R // 2) ** 2, (R // 4) ** 2
    ops = (N * (5 + 15 + 1 + 4 + 5 + 7)                     # c g0 e0 r0 archive display
           + Hn * (4 + 15 + 1 + 2 + 4)                      # l1 g1 e1 r1 p1
           + Qn * (4 + 15 + 4 + 7))                         # l2 g2 p2 preview
    inputs = N * (2 + 2 + 4)             # raw u16, dark u16, gain f32
    outputs = N * (2 + 1) + Qn * 1       # archive u16, display u8, preview u8
    return inputs + outputs, ops


CHAINS = {
    # name: base resolution of the description, inputs (port = file in the
    # frames folder), work
    "xray": {"base": 512, "inputs": [("raw", "raw"), ("offset", "dark.pgm"),
                                     ("gainmap", "gain.pfm")], "work": xray_work},
    "fluoro": {"base": 1024, "inputs": [("raw", "raw"), ("dark", "dark.pgm"),
                                        ("gain", "gain.pfm")], "work": fluoro_work},
}


def die(msg):
    print(f"run.py: {msg}", file=sys.stderr)
    sys.exit(1)


def sh(cmd, **kw):
    """Runs cmd; on failure prints it with its output and exits."""
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        die(f"`{shlex.join(str(c) for c in cmd)}` exited {r.returncode}:\n{r.stdout}{r.stderr}")
    return r


def scaled_description(chain, resolution, build, root=ROOT):
    """root's examples/CHAIN.ssc, or a copy with every resolution scaled by
    R / its own (xray composes at 512, fluoro at 1024; `-cr` does not scale
    their explicit sub-resolutions, E010)."""
    src = root / "examples" / f"{chain}.ssc"
    base = CHAINS[chain]["base"]
    if resolution == base:
        return src
    text = src.read_text()
    if is_chain(text):
        return src  # its size is its parameters: build_ssc gives -D W=R -D H=R
    instance = re.compile(r"\[(\d+), (\d+)\]")

    def scale(m):
        w, h = int(m.group(1)), int(m.group(2))
        return f"[{w * resolution // base}, {h * resolution // base}]"

    # Only the resolutions: instances (`NAME TYPE [w, h]`) and `compose`,
    # not `mul [2, 2]` or the window `[3, 3]` of the declarations.
    out = []
    for line in text.splitlines(keepends=True):
        if "container_declaration" in line or "mul [" in line:
            out.append(line)
        else:
            out.append(instance.sub(scale, line))
    build.mkdir(parents=True, exist_ok=True)
    path = build / f"{chain}.ssc"
    path.write_text("".join(out))
    return path


def ssc_binary(given=None, root=ROOT, always=False):
    """--ssc PATH; else root's target/release/ssc, built when missing
    (always: built anyway, for a baseline checkout whose binary may be
    stale); else `ssc` on PATH."""
    if given:
        exe = Path(given).resolve()
        if not exe.exists():
            die(f"--ssc {given}: no such file")
        return exe
    exe = root / "target" / "release" / "ssc"
    if always or not exe.exists():
        if shutil.which("cargo") and (root / "Cargo.toml").exists():
            print(f"run.py: cargo build --release in {root}", file=sys.stderr)
            sh(["cargo", "build", "--release"], cwd=root)
        elif shutil.which("ssc"):
            return Path(shutil.which("ssc"))
        else:
            die("no ssc: give --ssc PATH")
    return exe


def commit_of(root):
    r = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"],
                       capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else root.name


def arena_bytes(cfile):
    """Bytes of every arena the generated program maps."""
    return sum(int(n) for n in
               re.findall(r"ssc_arena_init\(&\w+,\s*(\d+)", cfile.read_text()))


def input_args(chain, frames):
    return [a for port, f in CHAINS[chain]["inputs"] for a in ("--input", f"{port}={frames / f}")]


def is_chain(text):
    """Whether a description is a chain (`chain NAME { … }`), whose size
    is set with -D, not by scaling its resolutions."""
    return re.search(r"^chain\s", text, re.M) is not None


def build_ssc(ssc, chain, desc, flags, resolution, build, index, cflags, frames, label="ssc"):
    d = build / f"{chain}-{label.replace('@', '-')}{index}"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    exe = d / chain
    if is_chain(Path(desc).read_text()):
        size = ["-D", f"W={resolution}", "-D", f"H={resolution}"]
    else:
        size = ["-cr", f"{resolution},{resolution}"]
    args = shlex.split(flags) + size
    env = dict(os.environ)
    if cflags is not None:
        env["CFLAGS"] = cflags
    sh([ssc, "build", desc, *args, "-od", d, "-o", exe], env=env)
    (d / "config").write_text(f"{label} {flags}\n")  # the name spikes.py shows
    cfiles = [c for c in d.glob("*.c") if not c.name.startswith("ssc_")]
    memory = sum(arena_bytes(c) for c in cfiles)
    # `--contract` rounds a * b + c once, `--reciprocal` multiplies by a
    # constant's reciprocal: other checksums, one for every configuration
    # with the same of these flags (checked below).
    relax = tuple(f for f in RELAXING if f in shlex.split(flags))
    return {"name": f"{label} {flags}", "group": "ssc", "chain": chain,
            "exact": not relax, "relax": relax,
            "cmd": [str(exe)] + input_args(chain, frames), "memory": memory}


def build_omp(chain, build, frames, R):
    progs = []
    for src, flags, label, extra in (
            (f"{chain}_omp.c", OMP_FLAGS, "OpenMP fork-join per box", []),
            (f"{chain}_omp_fused.c", OMP_FUSED_FLAGS, "OpenMP strips, fused", [f"-DRES={R}"])):
        exe = build / src[:-2]
        r = subprocess.run(["gcc", *flags, *extra, "-Wall", "-Wextra", "-o", exe,
                            HERE / src, "-lm"], capture_output=True, text=True)
        if r.returncode != 0:
            print(f"run.py: {src} skipped: gcc failed:\n{r.stderr}", file=sys.stderr)
            continue
        progs.append({"name": label, "group": "OpenMP", "chain": chain, "exact": True,
                      "cmd": [str(exe), "--resolution", str(R)] + input_args(chain, frames)})
    return progs


def build_halide(python, chain, R, build, frames, strict_only):
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
    for schedule, label in HALIDE_SCHEDULES:
        for strict in (True,) if strict_only else (True, False):
            name = f"{chain}_halide_{schedule}" + ("" if strict else "_nsf")
            lib = build / f"{name}.a"
            # Rebuilt when halide_chains.py changed (Adams2019 takes ~40 s).
            if not lib.exists() or lib.stat().st_mtime < (HERE / "halide_chains.py").stat().st_mtime:
                sh([python, HERE / "halide_chains.py", "--chain", chain, "--schedule", schedule,
                    "--resolution", str(R), "--out", build] + ([] if strict else ["--no-strict-float"]))
            exe = build / name
            sh(["gcc", "-std=c11", "-O3", "-march=native", "-Wall", "-Wextra", "-I", include,
                "-I", build, "-I", HERE, f"-DCHAIN_{chain.upper()}", f"-DPIPELINE={name}",
                f'-DPIPELINE_HEADER="{name}.h"', "-o", exe, HERE / "halide_driver.c", lib,
                "-lm", "-lpthread", "-ldl"])
            progs.append({"name": f"Halide {label}" + ("" if strict else " (no strict_float)"),
                          "group": "Halide", "chain": chain, "exact": strict,
                          "cmd": [str(exe), "--resolution", str(R)] + input_args(chain, frames)})
    return progs


def make_frames(numpy_python, R, count, build):
    """tests/fluoro/reference.py's phantom frames (once per R and count)."""
    d = build / f"frames-{count}"
    if not (d / "gain.pfm").exists() or len(list((d / "raw").glob("*.pgm"))) != count:
        shutil.rmtree(d, ignore_errors=True)
        sh([numpy_python, ROOT / "tests" / "fluoro" / "reference.py", "make", d, str(count), str(R)])
    return d


def measure_roofline(build):
    exe = build / "roofline"
    sh(["gcc", "-std=c11", "-O2", "-march=native", "-fopenmp", "-o", exe, HERE / "roofline.c"])
    r = sh([exe], env=program_env())
    return json.loads(r.stdout)


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
    ap = argparse.ArgumentParser(description="ssc's chains beside OpenMP and Halide peers")
    ap.add_argument("configs_pos", nargs="*", metavar="CONFIG",
                    help="ssc configurations (strings of `ssc build` flags)")
    ap.add_argument("--configs", nargs="+", default=None, help="as CONFIG")
    ap.add_argument("--chains", nargs="+", default=["xray", "fluoro"], choices=list(CHAINS))
    ap.add_argument("--ssc", default=None, metavar="PATH",
                    help="the ssc binary (default: target/release/ssc of this checkout, "
                         "built when missing; else ssc on PATH)")
    ap.add_argument("--resolution", type=int, default=1024, help="a multiple of 8 (default 1024)")
    ap.add_argument("--iterations", type=int, default=300, help="frames a program runs a round")
    ap.add_argument("--rounds", "--repeat", dest="rounds", type=int, default=3)
    ap.add_argument("--frames", type=int, default=16,
                    help="distinct phantom frames (reference.py make); iteration i takes frame i mod this")
    ap.add_argument("--json", action="store_true", help="the results as JSON instead")
    ap.add_argument("--ssc-cflags", default=None,
                    help="CFLAGS for ssc's C compile (default: ssc's own, -O3 -march=native)")
    ap.add_argument("--halide-python", default=os.environ.get(
        "HALIDE_PYTHON", "/work/venv-halide/bin/python"))
    ap.add_argument("--numpy-python", default=os.environ.get(
        "NUMPY_PYTHON", str(Path.home() / ".cache/ssc/venv-numpy/bin/python")),
        help="a python with numpy, for tests/fluoro/reference.py make")
    ap.add_argument("--strict-only", action="store_true",
                    help="no Halide builds without strict_float")
    ap.add_argument("--build-dir", default=None, help="default target/peers/R")
    ap.add_argument("--baseline", default=None, metavar="DIR",
                    help="another checkout of ssc (e.g. a git worktree at an older commit); xray only")
    ap.add_argument("--baseline-configs", nargs="+",
                    default=["-ts reduced 2 -ms interference -gw"],
                    help="configurations built with the baseline's ssc")
    ap.add_argument("--chrt", type=int, default=None, metavar="PRIO",
                    help="run every program SCHED_FIFO at PRIO (chrt -f PRIO), as a real-time system would")
    a = ap.parse_args()
    configs = (a.configs or []) + a.configs_pos or DEFAULT_CONFIGS
    R = a.resolution
    if R < 16 or R % 8:
        die("the resolution must be a multiple of 8")
    build = Path(a.build_dir or ROOT / "target" / "peers" / str(R)).resolve()
    build.mkdir(parents=True, exist_ok=True)
    log = sys.stderr if a.json else sys.stdout

    ssc = ssc_binary(a.ssc)
    frames = make_frames(a.numpy_python, R, a.frames, build)
    progs = []
    for chain in a.chains:
        desc = scaled_description(chain, R, build)
        progs += [build_ssc(ssc, chain, desc, c, R, build, i, a.ssc_cflags, frames)
                  for i, c in enumerate(configs)]
        if a.baseline and chain == "xray":
            base = Path(a.baseline).resolve()
            if not (base / "Cargo.toml").exists():
                die(f"--baseline {base}: not a checkout of ssc (no Cargo.toml)")
            label = f"ssc@{commit_of(base)}"
            old_ssc = ssc_binary(None, base, always=True)
            old_desc = scaled_description(chain, R, build / "baseline", base)
            progs += [build_ssc(old_ssc, chain, old_desc, c, R, build, i, None, frames, label)
                      for i, c in enumerate(a.baseline_configs)]
        progs += build_omp(chain, build, frames, R)
        progs += build_halide(a.halide_python, chain, R, build, frames, a.strict_only)

    (build / "programs.json").write_text(json.dumps(
        [{k: p[k] for k in ("chain", "name", "group", "cmd")} for p in progs], indent=1))
    print(f"measuring the roofline (roofline.c, {THREADS} threads) ...", file=log)
    machine = measure_roofline(build)
    env = program_env()
    try:
        load = os.getloadavg()
    except OSError:
        load = None
    if a.chrt is not None and shutil.which("chrt") is None:
        die("--chrt needs chrt (util-linux)")
    policy = "" if a.chrt is None else f", every program SCHED_FIFO {a.chrt} (chrt)"
    print(f"{len(progs)} programs at {R}x{R} ({a.frames} distinct frames in memory), "
          f"{a.rounds} rounds of {a.iterations} frames, interleaved{policy}; "
          f"load average before: {fmt_load(load)}", file=log)
    runs = {id(p): [] for p in progs}
    for k in range(a.rounds):
        for p in progs if k % 2 == 0 else reversed(progs):
            runs[id(p)].append(run_once(p, R, a.iterations, env, a.chrt))
        print(f"  round {k + 1}/{a.rounds} done", file=log)
    machine_after = measure_roofline(build)
    for key in machine:
        if key != "threads":
            machine[key] = max(machine[key], machine_after[key])   # the better of the two
    try:
        load_after = os.getloadavg()
    except OSError:
        load_after = None
    print(f"load average after: {fmt_load(load_after)}", file=log)

    if a.chrt is not None:
        for p in progs:
            long = max(r["wall_s"] for r in runs[id(p)])
            if long > RT_RUNTIME_S:
                print(f"note: {p['chain']} {p['name']}: a run took {long:.2f} s, more than the "
                      f"{RT_RUNTIME_S} s Linux lets SCHED_FIFO run a second: it was paused (RT "
                      f"throttling); compare it with fewer --iterations", file=log)

    bandwidth = max(machine["copy_GBps"], machine["triad_GBps"]) * 1e9
    vector = machine["addmul_Gops"] * 1e9
    result = {"resolution": R, "iterations": a.iterations, "rounds": a.rounds,
              "frames": a.frames, "chrt": a.chrt, "machine": machine,
              "load_before": load, "load_after": load_after, "chains": {}}
    failed = []
    for chain in a.chains:
        cp = [p for p in progs if p["chain"] == chain]
        exact = {(p["name"], r["checksum"]) for p in cp if p["exact"] for r in runs[id(p)]}
        sums = {c for _, c in exact}
        if len(sums) != 1:
            failed.append(f"{chain}:\n" + "\n".join(f"  {c}  {n}" for n, c in sorted(exact)))
            continue
        checksum = next(iter(sums))
        relaxed = {p["relax"] for p in cp if p["group"] == "ssc" and not p["exact"]}
        bad = False
        for relax in sorted(relaxed):
            same = {(p["name"], r["checksum"]) for p in cp
                    if p["group"] == "ssc" and p["relax"] == relax for r in runs[id(p)]}
            if len({c for _, c in same}) > 1:
                failed.append(f"{chain} ({' '.join(relax)}):\n" + "\n".join(f"  {c}  {n}" for n, c in sorted(same)))
                bad = True
        if bad:
            continue
        nbytes, ops = CHAINS[chain]["work"](R)
        t_mem, t_ops = nbytes / bandwidth * 1e6, ops / vector * 1e6
        roof = max(t_mem, t_ops)
        rows = []
        for p in cp:
            st = pooled(runs[id(p)])
            mem = p.get("memory", runs[id(p)][0].get("memory_bytes"))
            rounds = [{k: r["latency_us"][k] for k in ("mean", "stddev", "p99_9", "max")}
                      for r in runs[id(p)]]
            got = {r["checksum"] for r in runs[id(p)]}
            rows.append({"program": p["name"], "group": p["group"], **st, "memory_bytes": mem,
                         "checksum": ",".join(sorted(got)), "exact": p["exact"],
                         "same_checksum": got == {checksum}, "rounds": rounds})
        ssc_best = min(r["mean"] for r in rows if r["group"] == "ssc")
        for r in rows:
            r["roofline_x"] = r["mean"] / roof
            r["ssc_best_x"] = r["mean"] / ssc_best
        best = {}
        for g in ("ssc", "OpenMP", "Halide"):
            cand = [r for r in rows if r["group"] == g]
            if cand:
                best[g] = min(cand, key=lambda r: r["mean"])["program"]
            exact_cand = [r for r in cand if r["exact"]]
            if g == "Halide" and exact_cand:
                best["Halide, strict_float"] = min(exact_cand, key=lambda r: r["mean"])["program"]
            if g == "ssc" and exact_cand and len(exact_cand) < len(cand):
                best["ssc, without --contract or --reciprocal"] = min(exact_cand, key=lambda r: r["mean"])["program"]
        result["chains"][chain] = {
            "checksum": checksum, "bytes": nbytes, "ops": ops, "roofline_us": roof,
            "memory_bound_us": t_mem, "compute_bound_us": t_ops, "rows": rows, "best": best}
    if failed:
        die("CHECKSUMS DIFFER:\n" + "\n".join(failed))

    if a.json:
        print(json.dumps(result, indent=1))
        return
    print(f"\nmachine ({THREADS} threads): STREAM copy {machine['copy_GBps']:.1f} GB/s, triad "
          f"{machine['triad_GBps']:.1f} GB/s; vector add {machine['add_Gops']:.1f}, mul "
          f"{machine['mul_Gops']:.1f}, add+mul {machine['addmul_Gops']:.1f}, min/max "
          f"{machine['minmax_Gops']:.1f} Gop/s")
    for chain, c in result["chains"].items():
        print(f"\n### {chain} at {R}x{R}\n")
        print(f"roofline: max({c['bytes'] / 1e6:.2f} MB across DRAM / {bandwidth / 1e9:.1f} GB/s "
              f"= {c['memory_bound_us']:.0f} us, {c['ops'] / 1e6:.1f} M float ops / "
              f"{vector / 1e9:.1f} Gop/s = {c['compute_bound_us']:.0f} us) = "
              f"{c['roofline_us']:.0f} us; every exact program printed {c['checksum']}\n")
        print("| program | mean µs | σ µs | p99.9 µs | max µs | mean / roofline "
              "| mean / ssc-best | memory bytes | checksum |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
        for r in c["rows"]:
            mark = "= ssc" if r["same_checksum"] else r["checksum"] + " (≠ ssc)"
            print(f"| {r['program']} | {r['mean']:.1f} | {r['sd']:.1f} | {r['p99_9']:.1f} | "
                  f"{r['max']:.1f} | {r['roofline_x']:.2f} | {r['ssc_best_x']:.2f} | "
                  f"{r['memory_bytes']} | {mark} |")
        print()
        for g, name in c["best"].items():
            print(f"best of {g}: {name}")


if __name__ == "__main__":
    main()
