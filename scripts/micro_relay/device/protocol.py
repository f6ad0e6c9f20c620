"""The device protocol's frames (docs/device-protocol.md), the one place their layout is written on the host.

    offset  bytes  field
    0       1      sync: 0xA5 from the host, 0x5A from the device
    1       1      command
    2       1      sequence number (the host's; a reply echoes its request's)
    3       1      status (0 in a request; a reply's protocol status, STATUS below)
    4       2      payload length N, little-endian, at most MAX_PAYLOAD
    6       N      payload
    6+N     4      CRC-32 (IEEE 802.3, zlib.crc32) of bytes 0 .. 5+N, little-endian

The device server (device/server/mrs_server.c) holds the same constants.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

SYNC_REQUEST = 0xA5
SYNC_REPLY = 0x5A
HEADER = 6
MAX_PAYLOAD = 1024

HELLO, WRITE_INPUT, INVOKE, READ_OUTPUT, READ_TIMINGS, READ_TENSOR = 1, 2, 3, 4, 5, 6
COMMAND_NAMES = {HELLO: "HELLO", WRITE_INPUT: "WRITE_INPUT", INVOKE: "INVOKE", READ_OUTPUT: "READ_OUTPUT",
                 READ_TIMINGS: "READ_TIMINGS", READ_TENSOR: "READ_TENSOR"}

OK, BAD_CRC, BAD_COMMAND, BAD_ARGUMENT, NOT_DEBUG, TOO_LONG = 0, 1, 2, 3, 4, 5
STATUS = {OK: "ok", BAD_CRC: "the device saw a CRC error", BAD_COMMAND: "the device does not know the command",
          BAD_ARGUMENT: "the device refused the arguments (index, offset or length)",
          NOT_DEBUG: "the firmware is not a debug build (--debug-guards): it keeps no intermediate tensors",
          TOO_LONG: "the device refused the frame's length"}


@dataclass(frozen=True)
class Frame:
    command: int
    sequence: int
    status: int
    payload: bytes


def crc32(data: bytes) -> int:
    return zlib.crc32(data) & 0xFFFFFFFF


def encode(sync: int, frame: Frame) -> bytes:
    """The bytes of a frame (a request with SYNC_REQUEST, a reply with SYNC_REPLY)."""
    if len(frame.payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(frame.payload)} bytes, over {MAX_PAYLOAD}")
    head = struct.pack("<BBBBH", sync, frame.command, frame.sequence & 0xFF, frame.status, len(frame.payload))
    body = head + frame.payload
    return body + struct.pack("<I", crc32(body))


def request(command: int, sequence: int, payload: bytes = b"") -> bytes:
    return encode(SYNC_REQUEST, Frame(command, sequence, 0, payload))


class CrcError(Exception):
    """A reply whose CRC does not match its bytes."""


def read_reply(read) -> Frame:
    """The next reply from `read(n) -> bytes` (exactly n bytes, or raises on a time-out): bytes before a sync
    byte are skipped; CrcError when the frame is damaged, ValueError for a length over MAX_PAYLOAD."""
    while read(1)[0] != SYNC_REPLY:
        pass
    head = bytes([SYNC_REPLY]) + read(HEADER - 1)
    _, command, sequence, status, size = struct.unpack("<BBBBH", head)
    if size > MAX_PAYLOAD:
        raise CrcError(f"a reply announces {size} payload bytes, over {MAX_PAYLOAD}")
    rest = read(size + 4)
    payload, (crc,) = rest[:size], struct.unpack("<I", rest[size:])
    if crc32(head + payload) != crc:
        raise CrcError("a reply's CRC does not match its bytes")
    return Frame(command, sequence, status, payload)
