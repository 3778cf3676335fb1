#!/bin/sh
# run.sh SSC_A SSC_B — the built-in chains of this folder built by two ssc
# binaries (A: an older one, B: this one) under `-ts reduced 2` and
# `-ts fused 2`, and the pyramid written with definitions built by B, run
# interleaved: 3 rounds, each program 300 iterations in turn. One line a
# run: round, program, mean, sd, p99.9 (µs), checksum. BENCHMARKS.md,
# "Built-ins generated from their definitions".
set -eu
A=$1; B=$2
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$HERE/../../build/bench-builtins}
mkdir -p "$OUT"
progs=""
for cfg in reduced fused; do
    for chain in appendix1024 pyramid1024; do
        "$A" build "$HERE/$chain.ssc" -ts $cfg 2 -o "$OUT/${chain}_a_$cfg" > /dev/null 2>&1
        "$B" build "$HERE/$chain.ssc" -ts $cfg 2 -o "$OUT/${chain}_b_$cfg" > /dev/null 2>&1
        progs="$progs ${chain}_a_$cfg ${chain}_b_$cfg"
    done
    "$B" build "$HERE/pyramid1024_defined.ssc" -ts $cfg 2 -o "$OUT/pyramid1024_defined_b_$cfg" > /dev/null 2>&1
    progs="$progs pyramid1024_defined_b_$cfg"
done
for r in 1 2 3; do
    for p in $progs; do
        "$OUT/$p" --iterations 300 > "$OUT/out.txt"
        m=$(sed -n 's/^latency (us): count [0-9]*  mean \([0-9.]*\)  sd \([0-9.]*\) .*p99.9 \([0-9.]*\) .*/\1 \2 \3/p' "$OUT/out.txt")
        echo "$r $p $m $(sed -n 's/^checksum: //p' "$OUT/out.txt")"
    done
done
