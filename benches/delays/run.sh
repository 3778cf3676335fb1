#!/bin/sh
# run.sh SSC_A SSC_B — the temporal fluoroscopy chain at 1760² (the
# recursive filter t = 0.25·c + 0.75·t[previous] on a 12 MB float state)
# built by two ssc binaries (A: one that copies the state, B: this one,
# which double-buffers it) under `-ts reduced 2 -ms interference` and
# `-ts fused 2`, run interleaved: 3 rounds, each program 300 iterations
# in turn, every other round in the reverse order. One line a run: round,
# program, mean, sd, p99.9 (µs), checksum. BENCHMARKS.md, "Delays".
set -eu
A=$1; B=$2
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$HERE/../../build/bench-delays}
mkdir -p "$OUT"
progs=""
for cfg in "reduced 2 -ms interference" "fused 2"; do
    tag=$(echo "$cfg" | cut -d' ' -f1)
    "$A" build "$HERE/fluoro_temporal1760.ssc" -ts $cfg -o "$OUT/copy_$tag" > /dev/null 2>&1
    "$B" build "$HERE/fluoro_temporal1760.ssc" -ts $cfg -o "$OUT/double_$tag" > /dev/null 2>&1
    progs="$progs copy_$tag double_$tag"
done
reversed=$(for p in $progs; do echo "$p"; done | tac | tr '\n' ' ')
for r in 1 2 3; do
    order=$progs
    [ $((r % 2)) -eq 0 ] && order=$reversed
    for p in $order; do
        "$OUT/$p" --iterations 300 > "$OUT/out.txt"
        m=$(sed -n 's/^latency (us): count [0-9]*  mean \([0-9.]*\)  sd \([0-9.]*\) .*p99.9 \([0-9.]*\) .*/\1 \2 \3/p' "$OUT/out.txt")
        echo "$r $p $m $(sed -n 's/^checksum: //p' "$OUT/out.txt")"
    done
done
