"""figure.py — one input and one output frame side by side, as a PNG (the
picture in README, "A folder of frames"). Python's standard library only.

    python3 examples/app/figure.py INPUT.pgm OUTPUT.pgm PICTURE.png

Each frame is scaled on its own from its 0.5th to its 99.5th percentile to
8 bits, with a gap of 16 pixels between them.
"""
import struct
import sys
import zlib


def read_pgm(path):
    data = open(path, "rb").read()
    fields, pos = [], 2
    while len(fields) < 3:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos)
            continue
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(int(data[pos:end]))
        pos = end
    w, h, maxval = fields
    pixels = data[pos + 1:]
    if maxval > 255:
        values = struct.unpack(">%dH" % (w * h), pixels[:2 * w * h])
    else:
        values = list(pixels[:w * h])
    return w, h, values


def to_bytes(values):
    ordered = sorted(values)
    lo = ordered[len(ordered) // 200]
    hi = max(ordered[-1 - len(ordered) // 200], lo + 1)
    return bytes(min(255, max(0, (v - lo) * 255 // (hi - lo))) for v in values)


def write_png(path, w, h, grey):
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    rows = b"".join(b"\0" + grey[y * w:(y + 1) * w] for y in range(h))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(rows, 9)))
        f.write(chunk(b"IEND", b""))


def main():
    left, right, picture = sys.argv[1:4]
    (w, h, a), (w2, h2, b) = read_pgm(left), read_pgm(right)
    if (w, h) != (w2, h2):
        raise SystemExit("the frames differ in size: %dx%d and %dx%d" % (w, h, w2, h2))
    gap = 16
    a, b = to_bytes(a), to_bytes(b)
    out = bytearray()
    for y in range(h):
        out += a[y * w:(y + 1) * w] + b"\xff" * gap + b[y * w:(y + 1) * w]
    write_png(picture, 2 * w + gap, h, bytes(out))


if __name__ == "__main__":
    main()
