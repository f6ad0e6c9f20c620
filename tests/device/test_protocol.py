"""Frames of the device protocol: the layout docs/device-protocol.md gives, byte for byte, and a reader that
skips noise before a reply and refuses a damaged one."""

from __future__ import annotations

import struct
import zlib

import pytest

from micro_relay.device import protocol as p


def _reader(data: bytes):
    stream = iter(data)

    def read(n: int) -> bytes:
        out = bytes(next(stream) for _ in range(n))
        return out

    return read


def test_request_layout():
    """sync 0xA5, command, sequence, status 0, length 3 (little-endian), payload, CRC-32 (zlib's) of the rest."""
    frame = p.request(p.WRITE_INPUT, 7, b"\x01\x02\x03")
    assert frame[:6] == bytes([0xA5, 2, 7, 0, 3, 0])
    assert frame[6:9] == b"\x01\x02\x03"
    assert struct.unpack("<I", frame[9:])[0] == zlib.crc32(frame[:9])


def test_a_reply_is_read_after_noise():
    reply = p.encode(p.SYNC_REPLY, p.Frame(p.INVOKE, 200, p.OK, b"abc"))
    frame = p.read_reply(_reader(b"\x00\xff\xa5" + reply))
    assert frame == p.Frame(p.INVOKE, 200, p.OK, b"abc")


@pytest.mark.parametrize("flip", [1, 3, 6, 9])
def test_a_damaged_reply_is_refused(flip):
    """A flipped bit in the command, the status, the payload or the CRC itself."""
    reply = bytearray(p.encode(p.SYNC_REPLY, p.Frame(p.READ_OUTPUT, 1, p.OK, b"xyz")))
    reply[flip] ^= 0x10
    with pytest.raises(p.CrcError):
        p.read_reply(_reader(bytes(reply)))


def test_a_length_over_the_limit_is_refused_without_reading_it():
    head = struct.pack("<BBBBH", p.SYNC_REPLY, 1, 1, 0, p.MAX_PAYLOAD + 1)
    with pytest.raises(p.CrcError, match="over"):
        p.read_reply(_reader(head))
    with pytest.raises(ValueError):
        p.request(p.WRITE_INPUT, 1, bytes(p.MAX_PAYLOAD + 1))
