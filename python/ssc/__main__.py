"""`python -m ssc ARGS`: the `ssc` command this package installed."""

import os
import sys

from ssc import find_ssc_bin

if __name__ == "__main__":
    ssc = find_ssc_bin()
    os.execvp(ssc, [ssc, *sys.argv[1:]])
