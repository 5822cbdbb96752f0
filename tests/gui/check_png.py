#!/usr/bin/env python3
"""check_png.py FILE MIN_WIDTH MIN_HEIGHT: the same test as check_png.sh, with only Python's
standard library (for machines without ImageMagick, such as the GPU machine): FILE is an 8-bit
non-interlaced PNG (what stb and cairo write), at least MIN_WIDTH x MIN_HEIGHT, with at least 64
distinct colours and a standard deviation of its channel values (0..1) above 0.05.
check_png.py --each MIN_WIDTH MIN_HEIGHT FILE...: the same test of every FILE in one process (one
FAIL line each; exit 1 if any fails), for scripts that take many screenshots."""
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace:
        raise ValueError(f"unsupported PNG (depth {depth}, colour type {colour}, interlace {interlace})")
    raw = zlib.decompress(b"".join(idat))
    stride, bpp = width * channels, channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride): line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride): line[i] = (line[i] + ((line[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def check(path, min_w, min_h):
    """None if the PNG at path passes, else the FAIL line."""
    try:
        w, h, ch, rows = decode(path)
    except (OSError, ValueError, zlib.error, TypeError, struct.error) as e:
        return f"FAIL: {path}: not an image ({e})"
    if w < min_w or h < min_h:
        return f"FAIL: {path}: {w}x{h} is smaller than {min_w}x{min_h}"
    colours = set()
    total = total_sq = 0
    for r in rows:
        colours.update(r[i:i + ch] for i in range(0, len(r), ch))
        total += sum(r)
        total_sq += sum(v * v for v in r)
    n = w * h * ch
    mean = total / n / 255
    sd = max(0.0, total_sq / n / 65025 - mean * mean) ** 0.5
    if len(colours) < 64:
        return f"FAIL: {path}: only {len(colours)} colours: blank?"
    if sd <= 0.05:
        return f"FAIL: {path}: standard deviation {sd:.3f}: blank?"
    return None


def main():
    if sys.argv[1] == "--each":
        min_w, min_h, paths = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
    else:
        paths, min_w, min_h = [sys.argv[1]], int(sys.argv[2]), int(sys.argv[3])
    failures = [line for line in (check(p, min_w, min_h) for p in paths) if line]
    for line in failures:
        print(line)
    return 1 if failures or not paths else 0


if __name__ == "__main__":
    sys.exit(main())
