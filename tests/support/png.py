"""Read the 8-bit RGB or RGBA PNG a headless browser's screenshot is, into an array of RGB pixels: enough for the
picture tests to look at pixels without an imaging package."""

from __future__ import annotations

import struct
import zlib

import numpy as np


def read_png(data: bytes) -> np.ndarray:
    """The image as a (height, width, 3) uint8 array."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, chunks, header = 8, [], None
    while pos < len(data):
        size, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + size]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        pos += 12 + size
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour}, interlace {interlace}")
    step = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * step
    rows, previous = [], np.zeros(stride, np.int64)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = np.frombuffer(raw, np.uint8, stride, y * (stride + 1) + 1).astype(np.int64)
        if kind == 1:  # Sub: a running sum per channel
            line = np.cumsum(line.reshape(width, step), axis=0).reshape(-1) % 256
        elif kind == 2:  # Up
            line = (line + previous) % 256
        elif kind in (3, 4):  # Average, Paeth: sequential
            line = _sequential(kind, line, previous, step)
        rows.append(line.reshape(width, step)[:, :3].astype(np.uint8))
        previous = line
    return np.stack(rows)


def _sequential(kind: int, line, previous, step: int):
    out = [int(v) for v in line]
    for i in range(len(out)):
        left = out[i - step] if i >= step else 0
        up, corner = int(previous[i]), int(previous[i - step]) if i >= step else 0
        if kind == 3:
            out[i] = (out[i] + (left + up) // 2) & 0xFF
        else:
            p = left + up - corner
            pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
            out[i] = (out[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
    return np.array(out, np.int64)
