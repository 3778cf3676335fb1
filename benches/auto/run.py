#!/usr/bin/env python3
"""run.py — what `ssc build` chooses without -ts (-ts auto) against every
exact configuration of docs/fused.md's list ("What -ts auto chooses"), run
interleaved on this machine (BENCHMARKS.md, "The default schedule").

The chains: examples/fluoro.ssc and examples/xray.ssc at 1024² and at their
own sizes, and the ten chains of `ssc generate --seed N --resolution
256,256`. Each chain is built without -ts and with each configuration of
the list; the programs run in turns, --rounds rounds of --iterations
back-to-back iterations, the order reversed every other round; a
program's mean is the median of its rounds' means. Every program of a
chain must print one checksum. Prints, per chain, what auto chose, its
mean, the best configuration of the list and auto's mean over it (a
choice that is in the list is that program, run once);
--repeat runs it that many times (the builds once), --results writes the
table for benches/report.

    python3 benches/auto/run.py [--repeat 3] [--rounds 3] [--iterations 300]
        [--chains fluoro1024,xray1024,...] [--results benches/results/auto.json]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent

# The exact configurations of docs/fused.md's list, on every core.
LIST = ["-ts reduced {n}", "-ts predictable {n}", "-ts predictable {n} --inline", "-ts fused {n}",
        "-ts fused {n} --inline --strip-rows 16", "-ts fused {n} --inline --strip-rows 32",
        "-ts fused {n} --inline --strip-rows 64"]


def chains(tmp, ssc):
    """(name, description file, -D flags) of every chain."""
    out = []
    for ex in ("fluoro", "xray"):
        src = str(ROOT / "examples" / f"{ex}.ssc")
        out.append((f"{ex} 1024²", src, ["-D", "W=1024", "-D", "H=1024"]))
        out.append((f"{ex} (own size)", src, []))
    for n in range(1, 11):
        g = tmp / f"gen{n}.ssc"
        g.write_text(subprocess.run([ssc, "generate", "--seed", str(n), "--resolution", "256,256"],
                                    check=True, capture_output=True, text=True).stdout)
        out.append((f"gen{n}", str(g), []))
    return out


def build(ssc, src, defines, flags, exe, reuse=False):
    """Builds one program (or keeps the one there with --dir); gives the
    build's last line."""
    line = Path(f"{exe}.line")
    if reuse and exe.exists() and (line.exists() or flags):
        return line.read_text() if line.exists() else ""
    p = subprocess.run([ssc, "build", src, *defines, *flags, "-o", str(exe)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"ssc build {src} {' '.join(flags)}: {p.stderr}")
    line.write_text(p.stderr.strip().splitlines()[-1])
    return line.read_text()


def chosen_flags(line):
    """What auto chose, from the build's last line."""
    head = line.split("(", 1)[1]
    return head.split(", chosen by -ts auto", 1)[0]


def run_once(exe, iterations):
    p = subprocess.run([str(exe), "--iterations", str(iterations), "--json"],
                       capture_output=True, text=True, check=True)
    d = json.loads(p.stdout)
    return d["latency_us"]["mean"], d["checksum"]


def measure(programs, rounds, iterations):
    """Median of the rounds' means per program, in turns."""
    means = {k: [] for k in programs}
    sums = {}
    order = list(programs)
    for r in range(rounds):
        for k in (order if r % 2 == 0 else order[::-1]):
            m, c = run_once(programs[k], iterations)
            means[k].append(m)
            sums.setdefault(c, []).append(k)
    if len(sums) != 1:
        sys.exit(f"the programs disagree on the checksum: {sums}")
    return {k: statistics.median(v) for k, v in means.items()}


def cpu_model():
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--iterations", type=int, default=150)
    ap.add_argument("--dir", type=Path, help="build here, keeping the programs already there")
    ap.add_argument("--chains", help="comma-separated names (fluoro1024, xray, gen3, …)")
    ap.add_argument("--results", type=Path)
    a = ap.parse_args()
    ssc = os.environ.get("SSC", str(ROOT / "target" / "release" / "ssc"))
    n = os.cpu_count()
    tmp = a.dir or Path(tempfile.mkdtemp(prefix="ssc-auto-"))
    tmp.mkdir(parents=True, exist_ok=True)
    # Numbered before the choice of --chains, so that --dir keeps each
    # chain's programs apart.
    todo = list(enumerate(chains(tmp, ssc)))
    if a.chains:
        want = set(a.chains.split(","))
        todo = [(k, c) for k, c in todo
                if c[0].replace("²", "").replace(" ", "").replace("(ownsize)", "") in want]
    built = []
    for k, (name, src, defines) in todo:
        progs = {}
        choice = chosen_flags(build(ssc, src, defines, [], tmp / f"c{k}-auto", a.dir is not None))
        for j, cfg in enumerate(LIST):
            flags = cfg.format(n=n).split()
            build(ssc, src, defines, flags, tmp / f"c{k}-{j}", a.dir is not None)
            progs[cfg.format(n=n)] = tmp / f"c{k}-{j}"
        # A choice of the list is the same program as the list's: it runs
        # once, so that the ratio compares configurations, not two runs of
        # one program.
        if choice not in progs:
            progs["auto"] = tmp / f"c{k}-auto"
        built.append((name, choice, progs))
        print(f"built {name}: auto chose {choice}", file=sys.stderr)
    runs = {name: [] for name, _, _ in built}
    for r in range(a.repeat):
        for name, choice, progs in built:
            m = measure(progs, a.rounds, a.iterations)
            best = min((k for k in progs if k != "auto"), key=lambda k: m[k])
            print(f"run {r + 1} {name}: " + ", ".join(f"{k} {v:.0f}" for k, v in m.items()),
                  file=sys.stderr)
            mine = m["auto"] if "auto" in m else m[choice]
            runs[name].append((mine, best, m[best]))
            print(f"run {r + 1} {name}: auto {mine:.0f} µs, best {best} {m[best]:.0f} µs, "
                  f"ratio {mine / m[best]:.3f}", file=sys.stderr)
    columns = ["chain", "auto chose", "auto µs", "best of the list (per run)", "best µs",
               "auto / best"]
    rows = []
    for name, choice, _ in built:
        rs = runs[name]
        rows.append([name, f"`{choice}`", " / ".join(f"{x[0]:.0f}" for x in rs),
                     ", ".join(f"`{x[1]}`" for x in rs), " / ".join(f"{x[2]:.0f}" for x in rs),
                     ", ".join(f"{x[0] / x[2]:.2f}" for x in rs)])
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    if a.results:
        a.results.write_text(json.dumps({"benchmark": "The default schedule", "tables": {"auto": {
            "command": f"python3 benches/auto/run.py --repeat {a.repeat} --rounds {a.rounds} "
                       f"--iterations {a.iterations}",
            "machine": f"{n} cores, {cpu_model()}",
            "measured": time.strftime("%Y-%m-%d"),
            "note": "back-to-back iterations, pattern sources; a program's mean is the median "
                    "of its rounds' means",
            "columns": columns, "align": "llrlrr", "rows": rows}}}, indent=1,
            ensure_ascii=False) + "\n")


main()
