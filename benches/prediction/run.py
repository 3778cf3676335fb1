"""-pr's predicted latency against measured latency (BENCHMARKS.md, "Prediction
without a timing table").

    python3 benches/prediction/run.py [--calibrated] SSC ROUNDS CHAIN.ssc...

Builds each chain with `SSC build CHAIN -ts reduced 2 -ms reuse -pr` (no timing
table; an empty XDG_CACHE_HOME, so the shipped cost model, or with
--calibrated this machine's calibration, which `SSC calibrate` makes), then runs, ROUNDS
rounds interleaved, 300 back-to-back iterations and 200 frames at twice the
predicted period; prints each run's mean and p50 with predicted / mean and
predicted / p50. Builds go to /tmp/ssc-prediction."""
import json, re, subprocess, sys, os
args = sys.argv[1:]
calibrated = args[:1] == ['--calibrated']
args = args[1:] if calibrated else args
ssc, rounds, chains = args[0], int(args[1]), args[2:]
env = dict(os.environ) if calibrated else {**os.environ, 'XDG_CACHE_HOME': '/tmp/ssc-prediction/no-calibration'}
out = {}
for c in chains:
    name = os.path.basename(c).rsplit('.', 1)[0]
    od = f'/tmp/ssc-prediction/build-{name}'
    r = subprocess.run([ssc, 'build', c, '-ts', 'reduced', '2', '-ms', 'reuse', '-pr', '-od', od],
                       capture_output=True, text=True, env=env)
    m = re.search(r'^latency\s+([0-9.]+) µs', r.stdout + r.stderr, re.M)
    out[name] = dict(pred=float(m.group(1)), exe=os.path.join(od, name), b2b=[], per=[])
def run(exe, args):
    r = subprocess.run([exe, *args, '--json'], capture_output=True, text=True)
    l = json.loads(r.stdout)['latency_us']
    return l['mean'], l['p50']
for k in range(rounds):
    for name, d in out.items():
        d['b2b'].append(run(d['exe'], ['--iterations', '300']))
        d['per'].append(run(d['exe'], ['--period-us', f"{2 * d['pred']:.0f}", '--iterations', '200']))
for name, d in out.items():
    p = d['pred']
    fmt = lambda v: ", ".join(f"{m:.0f}/{q:.0f} ({p/m:.2f}/{p/q:.2f})" for m, q in v)
    print(f"{name}: predicted {p:.1f} µs\n  back-to-back mean/p50 (pred/mean, pred/p50): {fmt(d['b2b'])}\n  periodic     mean/p50 (pred/mean, pred/p50): {fmt(d['per'])}")
