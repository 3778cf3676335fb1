#!/usr/bin/env python3
"""How much work the one-time-per-C-function timing table gives a chain,
against each instance's own measured median (BENCHMARKS.md, `-pr` against
the measured period).

Usage: table_vs_instances.py CHAINS_DIR BENCH_OUT_DIR
  CHAINS_DIR     the generated chains (genN.ssc, flat `declaration`-free
                 compositions as `ssc generate` writes them)
  BENCH_OUT_DIR  the --out directory of `ssc bench` (its <chain>/etp/*.json)

The table's time of a C function is the median of its instance with the
largest iteration space (as `ssc bench` measures it)."""
import json
import os
import re
import sys


def median(pmf):
    acc = 0.0
    for value, p in pmf:
        acc += p
        if acc >= 0.5:
            return value
    return pmf[-1][0]


def main(chains, out):
    names = sorted(
        (f[:-4] for f in os.listdir(chains) if re.fullmatch(r"gen\d+\.ssc", f)),
        key=lambda n: int(n[3:]),
    )
    print("| chain | Σ own medians (µs) | Σ table times (µs) | table / own |")
    print("|---|---:|---:|---:|")
    for chain in names:
        text = open(os.path.join(chains, chain + ".ssc")).read()
        binds = dict(re.findall(r"(\w+)\s+(\w+)\s+(?:FULL|NONE)\b", text))
        instances = {}
        for name, container, w, h in re.findall(
            r"^\s+(\w+)\s+(\w+)\s+\[(\d+),\s*(\d+)\]", text, re.M
        ):
            if container in binds:
                instances[name] = (binds[container], int(w) * int(h))
        etp = os.path.join(out, chain, "etp")
        med = {}
        for f in os.listdir(etp):
            j = json.load(open(os.path.join(etp, f)))
            med[j["function"]] = median(j["pmf"])
        measured = [n for n in instances if n in med]
        table = {}
        for fn in {instances[n][0] for n in measured}:
            sizes = [(instances[n][1], med[n]) for n in measured if instances[n][0] == fn]
            top = max(s for s, _ in sizes)
            table[fn] = max(m for s, m in sizes if s == top)
        own = sum(med[n] for n in measured)
        given = sum(table[instances[n][0]] for n in measured)
        print(f"| {chain} | {own:,.0f} | {given:,.0f} | {given / own:.2f} |".replace(",", " "))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
