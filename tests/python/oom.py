"""oom.py — an allocation that fails in open is a Python exception.

    python oom.py DIR MODULE

DIR holds MODULE.py (`ssc build -t library`). The address space is
limited to what the process holds plus 64 KiB, 1 MiB and 4 MiB in turn:
each `open` must raise MODULE.Error with ssc's message; then, the limit
lifted, the chain opens and runs a frame in the same process. Prints a
line per attempt; exits 1 when a limited open did not raise.
"""
import resource
import sys

import numpy as np

sys.path.insert(0, sys.argv[1])
m = __import__(sys.argv[2])


def vm_size():
    for line in open("/proc/self/status"):
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    return 0


soft, hard = resource.getrlimit(resource.RLIMIT_AS)
frames = {n: np.zeros(s, d) for n, d, s in m.INPUTS}
ok = True
for headroom in (1 << 16, 1 << 20, 4 << 20):
    resource.setrlimit(resource.RLIMIT_AS, (vm_size() + headroom, hard))
    try:
        chain = m.open()
        chain.close()
        print(f"headroom {headroom}: opened")
        ok = False
    except m.Error as e:
        print(f"headroom {headroom}: open raised {type(e).__name__}: {e}")
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
with m.open() as chain:
    chain.run(**frames)
print("then opened and ran a frame: the process lives on")
sys.exit(0 if ok else 1)
