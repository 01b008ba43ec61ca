#!/usr/bin/env python3
"""Counts a PNG screenshot's pixels for tests/apps/test_report.cpp (standard library only).

Prints one line: "width height nonbackground colored", where the background is the
most common color, nonbackground counts pixels that differ from it, and colored counts
saturated pixels (max - min channel > 60): the data of a figure (axes and text are grey).
Handles 8-bit grey, RGB, RGBA, grey+alpha, non-interlaced (what Chromium writes).
"""
import struct
import sys
import zlib
from collections import Counter


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG file")
    pos, idat, header = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    width, height, depth, color, _, _, interlace = header
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(color)
    if depth != 8 or channels is None or interlace:
        raise ValueError(f"{path}: unsupported PNG (depth {depth}, color type {color}, interlace {interlace})")
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        ftype, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def main():
    width, height, channels, rows = read_png(sys.argv[1])
    pixels = Counter()
    for line in rows:
        for x in range(width):
            px = line[x * channels:(x + 1) * channels]
            rgb = (px[0],) * 3 if channels <= 2 else tuple(px[:3])
            pixels[rgb] += 1
    background, _ = pixels.most_common(1)[0]
    nonbackground = sum(n for rgb, n in pixels.items() if rgb != background)
    colored = sum(n for rgb, n in pixels.items() if max(rgb) - min(rgb) > 60)
    print(width, height, nonbackground, colored)


if __name__ == "__main__":
    main()
