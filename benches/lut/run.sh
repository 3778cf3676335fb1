#!/bin/sh
# run.sh [SSC] — the look-up of a 65 536-entry table at 1760² built twice
# by one ssc: as generated (`-O3 -march=native`: gcc turns the look-up
# into AVX-512 or AVX2 gathers) and with `-fno-tree-vectorize` added (one
# scalar load a pixel). Both under `-ts fused 2 -ta`, run interleaved: 3
# rounds of 300 iterations. One line a run: round, program, the look-up's
# sub-boxes' time a frame (both threads, µs), the number of gather
# instructions in the program. docs/fused.md, "Table look-ups".
set -eu
SSC=${1:-ssc}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$HERE/../../build/bench-lut}
mkdir -p "$OUT"
cp "$HERE/gamma1760.ssc" "$OUT/"
python3 -c "print(' '.join('%.6f' % (65535 * (i / 65535.0) ** 0.45) for i in range(65536)))" > "$OUT/gamma.txt"
"$SSC" build "$OUT/gamma1760.ssc" -ts fused 2 -ta -td csv -dt "$OUT/gather.csv" -o "$OUT/gather" > /dev/null 2>&1
CFLAGS="-O3 -march=native -fno-tree-vectorize" \
    "$SSC" build "$OUT/gamma1760.ssc" -ts fused 2 -ta -td csv -dt "$OUT/scalar.csv" -o "$OUT/scalar" > /dev/null 2>&1
for r in 1 2 3; do
    for p in gather scalar; do
        "$OUT/$p" --iterations 300 > /dev/null
        t=$(awk -F, '$1 == "box" && $3 ~ /^t\./ && $4 >= 20 { s += $6 - $5; n[$4] = 1 } END { c = 0; for (i in n) c++; printf "%.0f", s / c / 1000 }' "$OUT/$p.csv")
        g=$(objdump -d "$OUT/$p" | grep -c gather || true)
        echo "$r $p $t $g"
    done
done
