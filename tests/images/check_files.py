"""check_files.py — runs image files through the Python module of a chain
built with `-t library` (tests/it/images.rs): the library's checksum on the
same frames the program read with --input.

    python check_files.py DIR MODULE NAME=FOLDER...

Each folder holds one input's frames (binary PGM or PFM), taken in name
order, as the program takes them.
"""
import os
import sys

import numpy as np


def read_image(path):
    data = open(path, "rb").read()
    magic, rest = data[:2], data[2:]
    fields, pos = [], 0
    while len(fields) < 3:  # PGM: width height maxval; PFM: width height scale
        while rest[pos:pos + 1].isspace():
            pos += 1
        if rest[pos:pos + 1] == b"#":
            pos = rest.index(b"\n", pos)
            continue
        end = pos
        while not rest[end:end + 1].isspace():
            end += 1
        fields.append(rest[pos:end].decode())
        pos = end
    pixels = rest[pos + 1:]
    w, h = int(fields[0]), int(fields[1])
    if magic == b"P5":
        dtype = ">u2" if int(fields[2]) > 255 else "u1"
        return np.frombuffer(pixels, dtype, w * h).reshape(h, w)
    order = "<" if float(fields[2]) < 0 else ">"
    return np.flipud(np.frombuffer(pixels, order + "f4", w * h).reshape(h, w))  # bottom row first


directory, module = sys.argv[1], sys.argv[2]
inputs = dict(arg.split("=", 1) for arg in sys.argv[3:])
sys.path.insert(0, directory)
chain_module = __import__(module)
dtypes = {name: np.dtype(dt) for name, dt, _ in chain_module.INPUTS}
frames = {name: sorted(os.listdir(folder)) for name, folder in inputs.items()}
count = len(next(iter(frames.values())))

with chain_module.open(cores=[0, 1]) as chain:
    for k in range(count):
        given = {name: read_image(os.path.join(inputs[name], frames[name][k])).astype(dtypes[name])
                 for name in inputs}
        for name, dt, shape in chain_module.INPUTS:
            if name not in given:
                raise SystemExit(f"no frames for input {name}")
        chain.run(**given)
    print("checksum: 0x%016x" % chain.checksum())
