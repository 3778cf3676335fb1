"""-pr's predicted latency against measured latency (BENCHMARKS.md, "Prediction
without a timing table").

    python3 benches/prediction/run.py [--calibrated] [--flags "FLAGS"] SSC ROUNDS CHAIN.ssc...

Builds each chain with `SSC build CHAIN FLAGS -pr` (FLAGS empty by default:
the default build, `-ts auto`; no timing table; an empty XDG_CACHE_HOME, so
the shipped cost model, or with --calibrated this machine's calibration,
which `SSC calibrate` makes), then runs, ROUNDS
rounds interleaved, 300 back-to-back iterations and 200 frames at twice the
predicted period; prints each run's mean and p50 with predicted / mean and
predicted / p50. Builds go to /tmp/ssc-prediction.

Before each round it probes the host for half a second: a busy loop pinned
to each CPU notes every gap of more than 100 µs in its clock (the vCPU was
preempted by the hypervisor), and the round's line says how many ms a
second were lost. A round with gaps shows in the means (a 1-3 ms stall in
a frame) more than in the p50s."""
import json, re, subprocess, sys, os, time, multiprocessing
args = sys.argv[1:]
calibrated = args[:1] == ['--calibrated']
args = args[1:] if calibrated else args
flags = []
if args[:1] == ['--flags']:
    flags, args = args[1].split(), args[2:]
ssc, rounds, chains = args[0], int(args[1]), args[2:]
env = dict(os.environ) if calibrated else {**os.environ, 'XDG_CACHE_HOME': '/tmp/ssc-prediction/no-calibration'}
out = {}
for c in chains:
    name = os.path.basename(c).rsplit('.', 1)[0]
    od = f'/tmp/ssc-prediction/build-{name}'
    r = subprocess.run([ssc, 'build', c, *flags, '-pr', '-od', od],
                       capture_output=True, text=True, env=env)
    m = re.search(r'^latency\s+([0-9.]+) µs', r.stdout + r.stderr, re.M)
    out[name] = dict(pred=float(m.group(1)), exe=os.path.join(od, name), b2b=[], per=[])
def gaps(cpu, seconds, q):
    os.sched_setaffinity(0, {cpu})
    start = prev = time.perf_counter_ns()
    lost = 0
    while prev - start < seconds * 1e9:
        now = time.perf_counter_ns()
        if now - prev > 100_000:
            lost += now - prev
        prev = now
    q.put(lost)
def host_lost_ms_per_s(seconds=0.5):
    """ms a second the CPUs lost to preemption, over all CPUs (see the docs)."""
    # fork: the children run `gaps` only (forkserver or spawn would run
    # this script again).
    mp = multiprocessing.get_context('fork')
    q = mp.Queue()
    ps = [mp.Process(target=gaps, args=(c, seconds, q)) for c in sorted(os.sched_getaffinity(0))]
    for p in ps: p.start()
    lost = sum(q.get() for _ in ps)
    for p in ps: p.join()
    return lost / 1e6 / seconds
def run(exe, args):
    r = subprocess.run([exe, *args, '--json'], capture_output=True, text=True)
    l = json.loads(r.stdout)['latency_us']
    return l['mean'], l['p50']
lost = []
for k in range(rounds):
    lost.append(host_lost_ms_per_s())
    for name, d in out.items():
        d['b2b'].append(run(d['exe'], ['--iterations', '300']))
        d['per'].append(run(d['exe'], ['--period-us', f"{2 * d['pred']:.0f}", '--iterations', '200']))
for name, d in out.items():
    p = d['pred']
    fmt = lambda v: ", ".join(f"{m:.0f}/{q:.0f} ({p/m:.2f}/{p/q:.2f})" for m, q in v)
    print(f"{name}: predicted {p:.1f} µs\n  back-to-back mean/p50 (pred/mean, pred/p50): {fmt(d['b2b'])}\n  periodic     mean/p50 (pred/mean, pred/p50): {fmt(d['per'])}")
print("host: ms a second lost to preemption before each round: " + ", ".join(f"{v:.1f}" for v in lost))
