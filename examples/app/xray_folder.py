# xray_folder.py — a folder of 16-bit X-ray frames through the X-ray chain
# from Python with numpy, the results (its 16-bit archive output, `store`)
# written as 16-bit PGM (README, "A folder of frames"); the same as
# xray_folder.c, byte for byte.
#
#   python3 examples/app/phantom.py build/phantom
#   ssc build examples/xray.ssc -t library -ts fused 2 -od build/xray-lib
#   PYTHONPATH=build/xray-lib python3 examples/app/xray_folder.py build/phantom build/phantom/out-py
import os
import sys

import numpy as np

import xray


def read_pgm16(path):
    with open(path, "rb") as f:
        magic, w, h, maxval = f.readline().split() + f.readline().split() + f.readline().split()
        assert magic == b"P5" and int(maxval) > 255, f"{path}: not a 16-bit PGM"
        return np.frombuffer(f.read(), ">u2", int(w) * int(h)).reshape(int(h), int(w))


def write_pgm16(path, frame):
    with open(path, "wb") as f:
        f.write(b"P5\n%d %d\n65535\n" % (frame.shape[1], frame.shape[0]))
        f.write(np.clip(frame, 0, 65535).astype(">u2").tobytes())


folder, out_dir = sys.argv[1], sys.argv[2]
dark = read_pgm16(os.path.join(folder, "dark.pgm")).astype(np.int64)
flat = read_pgm16(os.path.join(folder, "flat.pgm")).astype(np.int64)
offset = dark.astype(np.float32)  # offset = dark, gain = mean(flat - dark) / (flat - dark)
gain = ((flat - dark).sum() / dark.size / (flat - dark)).astype(np.float32)
os.makedirs(out_dir, exist_ok=True)
with xray.open() as chain:  # threads pinned as built
    outputs = None  # reused frame after frame
    for name in sorted(n for n in os.listdir(os.path.join(folder, "raw")) if not n.startswith(".")):
        raw = read_pgm16(os.path.join(folder, "raw", name)).astype(np.uint16)  # 16-bit counts
        outputs = chain.run(raw=raw, offset=offset, gainmap=gain, out=outputs)
        write_pgm16(os.path.join(out_dir, name), outputs["store"])  # the window 0..16000, 16-bit
    s = chain.stats()
    print(f"{s['count']} frames, latency mean {s['mean_us']:.1f} us, p99 {s['p99_us']:.1f} us; "
          f"checksum 0x{chain.checksum():016x}")
