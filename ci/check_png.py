#!/usr/bin/env python3
"""Checks a screenshot of the matrix page: it decodes the PNG (stdlib only: zlib + the five PNG
filters) and counts pixels of the page's pass and fail cell colours. A page that failed to render,
rendered blank, or lost its styles has none of them, so this catches what "the file exists" would not.

usage: check_png.py SCREENSHOT.png MIN_PIXELS COLOUR=NAME [COLOUR=NAME ...]   (COLOUR as rrggbb)
"""
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG file")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    channels = {2: 3, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace:
        sys.exit(f"{path}: unsupported PNG (depth {depth}, colour type {colour}, interlace {interlace})")
    raw, stride = zlib.decompress(idat), width * channels
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = prev[x]
            c = prev[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    path, minimum = sys.argv[1], int(sys.argv[2])
    wanted = {}
    for arg in sys.argv[3:]:
        hexa, name = arg.split("=", 1)
        wanted[bytes.fromhex(hexa)] = name
    width, height, channels, rows = decode(path)
    counts = dict.fromkeys(wanted, 0)
    for row in rows:
        for x in range(0, len(row), channels):
            rgb = row[x:x + 3]
            if rgb in counts:
                counts[rgb] += 1
    ok = True
    for rgb, name in wanted.items():
        print(f"{path}: {width}x{height}, {counts[rgb]} pixels of {name} (#{rgb.hex()})")
        ok &= counts[rgb] >= minimum
    if not ok:
        sys.exit(f"{path}: fewer than {minimum} pixels of some cell colour: the page did not render its grid")


if __name__ == "__main__":
    main()
