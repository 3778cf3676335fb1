"""What a sub-box of `-ts fused 2` costs (docs/fused.md, "What a sub-box costs").

    python3 benches/fused/subbox_cost.py SSC ROUNDS

(A) tests/in/chain.ssc at [64, 4096] (three functions of 64-byte rows:
almost no work per sub-box) at strip heights 1 to 4096, and (B)
benches/xray1024.ssc at strip heights 2 to 64, each built with `SSC build
-ts fused 2 --strip-rows R`; then ROUNDS rounds, interleaved, of 300
back-to-back iterations of every program. Prints each program's sub-boxes
and mean latency per round, and per round the least-squares slope of (A)'s
mean against its sub-boxes. Builds go to /tmp/ssc-subbox."""
import json, re, subprocess, sys, os, statistics as st
ssc, rounds = sys.argv[1], int(sys.argv[2])
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.makedirs('/tmp/ssc-subbox', exist_ok=True)
chain = open(f'{root}/tests/in/chain.ssc').read().replace('[64, 48]', '[64, 4096]')
open('/tmp/ssc-subbox/thin.ssc', 'w').write(chain)
progs = []
def build(desc, rows, tag):
    od = f'/tmp/ssc-subbox/{tag}'
    args = [ssc, 'build', desc, '-ts', 'fused', '2', '-od', od, '-o', f'{od}/prog', '-v']
    if rows: args += ['--strip-rows', str(rows)]
    r = subprocess.run(args, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    info = subprocess.run([ssc, 'build', desc, '-ts', 'fused', '2', '-t', 'info'] + (['--strip-rows', str(rows)] if rows else []), capture_output=True, text=True).stdout
    n = int(re.search(r'actors \(sub-boxes\)\s+(\d+)', info).group(1))
    progs.append(dict(tag=tag, exe=f'{od}/prog', subboxes=n, means=[]))
for r in [1, 2, 4, 8, 32, 128, 4096]:
    build('/tmp/ssc-subbox/thin.ssc', r, f'thin-r{r}')
for r in [2, 4, 8, 16, 32, 64]:
    build(f'{root}/benches/xray1024.ssc', r, f'xray1024-r{r}')
for k in range(rounds):
    for p in progs:
        out = subprocess.run([p['exe'], '--iterations', '300', '--json'], capture_output=True, text=True).stdout
        p['means'].append(json.loads(out)['latency_us']['mean'])
for p in progs:
    print(f"{p['tag']:16s} sub-boxes {p['subboxes']:6d}  mean µs " + " / ".join(f"{m:.1f}" for m in p['means']))
for k in range(rounds):
    xs = [p['subboxes'] for p in progs if p['tag'].startswith('thin')]
    ys = [p['means'][k] for p in progs if p['tag'].startswith('thin')]
    mx, my = st.mean(xs), st.mean(ys)
    b = sum((x-mx)*(y-my) for x, y in zip(xs, ys)) / sum((x-mx)**2 for x in xs)
    print(f"round {k+1}: thin chain, µs per sub-box (slope) {b*1000:.0f} ns, intercept {my-b*mx:.1f} µs")
