# xray_app.py — the X-ray chain called from Python with numpy (README, "Use
# it from your code"). Build the library, then run this with the module on
# the path:
#
#   ssc build examples/xray.ssc -t library -ts fused 2 -od build/xray-lib
#   PYTHONPATH=build/xray-lib python3 examples/app/xray_app.py
#
# The module needs numpy, which a stock Python lacks ("No module named
# 'numpy'"): `python3 -m pip install numpy` (in a venv: `python3 -m venv
# ~/venv && ~/venv/bin/pip install numpy`, then run ~/venv/bin/python), or
# Debian/Ubuntu's `apt install python3-numpy`.
import numpy as np

import xray

y, x = np.mgrid[0:512, 0:512]
offset = np.full((512, 512), 1000, np.float32)  # the dark level
gain = np.ones((512, 512), np.float32)  # a flat gain
with xray.open(cores=[0, 1]) as chain:
    for frame in range(100):   # a disc that moves right, on a ramp
        disc = (x - 100 - 3 * frame) ** 2 + (y - 256) ** 2 < 60 ** 2
        raw = (1000 + 8000 * y // 512 + 6000 * disc).astype(np.uint16)  # 16-bit counts
        out = chain.run(raw=raw, offset=offset, gainmap=gain)
    s = chain.stats()
    print(f"{s['count']} frames, latency mean {s['mean_us']:.1f} us, p99 {s['p99_us']:.1f} us; "
          f"display centre {out['display'][256, 400]:.3f}")
