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

The kernel admits a SCHED_DEADLINE thread only when its affinity is its
whole root domain, so a deadline thread pinned to core 1 needs core 1 to
be a root domain of its own. With --cpuset (the default where the cgroup-v1
cpuset controller is mounted) the run makes it one, as the kernel's
sched-deadline.rst ("SCHED_DEADLINE and cpusets HOWTO") says: an exclusive
cpuset `ssc-rt` of core 1, load balancing off in the root cpuset. The chain
(every policy) and the hog on core 1 run in it, and the deadline thread is
then on core 1 like the others. The root cpuset is restored at the end.
With --no-cpuset the deadline thread is not pinned and runs where the
kernel puts it.

    python3 benches/deadline/run.py [--repeat 3] [--frames 1000] [--no-cpuset]
                                    [--results benches/results/deadline.json]
"""
import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CPUSET = Path("/sys/fs/cgroup/cpuset")


@contextlib.contextmanager
def root_domain(core):
    """An exclusive cpuset of `core`, a root domain of its own; yields the
    function that moves a process into it (for preexec_fn)."""
    d = CPUSET / "ssc-rt"
    balance = (CPUSET / "cpuset.sched_load_balance").read_text().strip()
    d.mkdir(exist_ok=True)
    (d / "cpuset.cpus").write_text(str(core))
    (d / "cpuset.mems").write_text((CPUSET / "cpuset.mems").read_text().strip())
    (d / "cpuset.cpu_exclusive").write_text("1")
    (CPUSET / "cpuset.sched_load_balance").write_text("0")

    def enter():
        (d / "cgroup.procs").write_text(str(os.getpid()))
    try:
        yield enter
    finally:
        for pid in (d / "cgroup.procs").read_text().split():
            with contextlib.suppress(OSError):
                (CPUSET / "cgroup.procs").write_text(pid)
        (CPUSET / "cpuset.sched_load_balance").write_text(balance)
        d.rmdir()


def steal_ms():
    """The host's steal time so far, all cores (ms): time this guest's
    vCPUs were runnable and the hypervisor ran something else."""
    fields = Path("/proc/stat").read_text().split("\n")[0].split()
    return int(fields[8]) * 1000 / os.sysconf("SC_CLK_TCK")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--frames", type=int, default=1000)
    ap.add_argument("--cpuset", action=argparse.BooleanOptionalAction,
                    default=(CPUSET / "cpuset.cpus").exists())
    ap.add_argument("--results", type=Path, help="write the table for benches/report here")
    a = ap.parse_args()
    with root_domain(1) if a.cpuset else contextlib.nullcontext(None) as enter:
        measure(a, enter)


def measure(a, enter):
    ssc = os.environ.get("SSC", str(ROOT / "target" / "release" / "ssc"))
    out = Path(tempfile.mkdtemp(prefix="ssc-deadline-"))
    subprocess.run([ssc, "build", str(ROOT / "examples" / "xray.ssc"), "-ts", "fused", "1",
                    "-cm", "1", "-gw", "-o", str(out / "xray")], check=True, capture_output=True)
    subprocess.run(["cc", "-O2", "-o", str(out / "hog"), str(HERE / "hog.c")], check=True)
    base = [str(out / "xray"), "--iterations", str(a.frames), "--period-us", "2000", "--json"]
    policies = {"SCHED_OTHER": [], "--fifo 50": ["--fifo", "50"],
                "--sched-deadline": ["--sched-deadline", "--deadline-margin", "1.5"]}
    rows = {}
    reservation = {}

    def hog_rate(core, seconds):
        h = subprocess.Popen(["taskset", "-c", str(core), str(out / "hog")], stdout=subprocess.PIPE,
                             text=True, preexec_fn=enter if core == 1 else None)
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
                                         stdout=subprocess.PIPE, text=True,
                                         preexec_fn=enter if hog == 1 else None)
                    time.sleep(0.2)
                s0 = steal_ms()
                p = subprocess.run(base + flags, capture_output=True, text=True, preexec_fn=enter)
                steal = steal_ms() - s0
                rate = None
                if h is not None:
                    h.terminate()
                    rate = float(h.communicate()[0])
                if p.returncode != 0:
                    sys.exit(f"{name}: {p.stderr}")
                report = json.loads(p.stdout)
                lat = report["latency_us"]
                over = sum(t["overruns"] for t in report["sched_deadline"] or [])
                for t in report["sched_deadline"] or []:
                    reservation[t["thread"]] = t["runtime_us"]
                rows.setdefault((hog, name), []).append(
                    (lat["mean"], lat["stddev"], lat["p99_9"], rate, steal, over))
    print(f"hog alone on core 1: {alone_hog:.0f} loops/s; core 1 a root domain: {enter is not None}; "
          f"deadline runtime µs per thread: {reservation}\n")
    columns = ["hog", "policy", "mean", "σ", "p99.9", "hog vs alone", "steal ms", "overruns"]
    table = []
    for (hog, name), runs in rows.items():
        f = lambda k: " / ".join(f"{x[k]:.0f}" for x in runs)  # noqa: E731
        rate = " / ".join(f"{x[3] / alone_hog:.2f}" for x in runs) if hog is not None else "—"
        where = "none" if hog is None else f"core {hog}"
        table.append([where, name, f(0), f(1), f(2), rate, f(4), f(5)])
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for r in table:
        print("| " + " | ".join(r) + " |")
    if a.results:
        cpuset = "core 1 made a root domain (an exclusive cpuset), " if enter else ""
        a.results.write_text(json.dumps({"benchmark": "Real-time beside a hog", "tables": {"deadline": {
            "command": f"python3 benches/deadline/run.py --repeat {a.repeat} --frames {a.frames}"
                       + ("" if enter else " --no-cpuset"),
            "machine": "2 cores, AMD EPYC under KVM, 24 GiB",
            "measured": time.strftime("%Y-%m-%d"),
            "note": f"as root; {cpuset}a deadline runtime of {reservation[0]:.0f} µs",
            "columns": columns, "align": "llrrrrrr", "rows": table}}}, indent=1,
            ensure_ascii=False) + "\n")

main()
