"""The device's commands as host calls: each sends one request and returns its reply's payload, repeating the
request when a reply is damaged or lost and after the device reports a CRC error.

Every request may be repeated (docs/device-protocol.md): writes and reads name their bytes, and a repeated
INVOKE, which keeps its sequence number and follows its first try, gets the reply of the run already made.
A damaged length field leaves the device waiting for bytes that never come: after a time-out the host sends
FLUSH zero bytes, enough to end any frame the device is in the middle of (zeros are never a sync byte, so
nothing new starts), drops what comes back and asks again. After RETRIES attempts the error is reported: a
time-out, or a CRC error on every attempt.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from ..errors import CompileError
from . import identity as identity_mod
from . import protocol as p
from .transport import DeviceTimeout, Transport

RETRIES = 3
FLUSH = p.HEADER + p.MAX_PAYLOAD + 4


class DeviceError(CompileError):
    """A device that does not answer, answers damaged frames, refuses a request or runs another model."""


@dataclass(frozen=True)
class InvokeResult:
    status: int  # the model's: MR_OK or an MR_ERR_* code
    failed_layer: int  # debug builds: the step that failed, -1 after success; -2 when the build does not say
    count: int  # instructions (or cycles) of the whole invoke
    layers: int  # layers the run marked


class Device:
    def __init__(self, transport: Transport, where: str):
        self.transport = transport
        self.where = where  # the port or board, for error messages
        self.sequence = 0
        self.crc_errors = 0  # damaged frames seen either way, for the report
        self.unit = "counts"  # what the device's counts are (its HELLO says)

    def _call(self, command: int, payload: bytes = b"") -> bytes:
        self.sequence = (self.sequence + 1) & 0xFF
        frame = p.request(command, self.sequence, payload)
        name = p.COMMAND_NAMES[command]
        last, answered = "", False
        for _ in range(RETRIES):
            try:
                self.transport.write(frame)
                reply = p.read_reply(self.transport.read)
            except DeviceTimeout as exc:
                last = str(exc)
                try:
                    self.transport.write(bytes(FLUSH))
                except DeviceTimeout:
                    break
                self.transport.discard_input()
                continue
            except p.CrcError as exc:
                self.crc_errors += 1
                last = str(exc)
                self.transport.discard_input()
                continue
            if reply.status == p.BAD_CRC:
                self.crc_errors += 1
                last = p.STATUS[p.BAD_CRC]
                continue
            if (reply.command, reply.sequence) != (command, self.sequence):
                self.transport.discard_input()
                last = "a reply to another request"
                continue
            answered = True
            if reply.status != p.OK:
                raise DeviceError(f"{name}: {p.STATUS.get(reply.status, f'status {reply.status}')}", self.where)
            return reply.payload
        if not answered and not self.crc_errors and last:
            raise DeviceError(f"the device did not answer {name}: {last}", self.where)
        raise DeviceError(f"{name} failed {RETRIES} times: {last}", self.where)

    def hello(self) -> tuple[identity_mod.Identity, str]:
        try:
            return identity_mod.decode(self._call(p.HELLO))
        except ValueError as exc:
            raise DeviceError(str(exc), self.where) from None

    def write_input(self, index: int, data: bytes) -> None:
        step = p.MAX_PAYLOAD - 5
        for offset in range(0, max(len(data), 1), step):
            self._call(p.WRITE_INPUT, struct.pack("<BI", index, offset) + data[offset:offset + step])

    def invoke(self) -> InvokeResult:
        status, layer, count, layers = struct.unpack("<iiQI", self._call(p.INVOKE))
        return InvokeResult(status, layer, count, layers)

    def _read(self, command: int, head: bytes, size: int) -> bytes:
        out = bytearray()
        for offset in range(0, size, p.MAX_PAYLOAD):
            length = min(p.MAX_PAYLOAD, size - offset)
            out += self._call(command, head + struct.pack("<IH", offset, length))
        return bytes(out)

    def read_output(self, index: int, size: int) -> bytes:
        return self._read(p.READ_OUTPUT, struct.pack("<B", index), size)

    def read_tensor(self, index: int, size: int) -> bytes:
        return self._read(p.READ_TENSOR, struct.pack("<H", index), size)

    def read_timings(self, layers: int) -> list[int]:
        counts: list[int] = []
        per = p.MAX_PAYLOAD // 8
        for first in range(0, layers, per):
            n = min(per, layers - first)
            counts += struct.unpack(f"<{n}Q", self._call(p.READ_TIMINGS, struct.pack("<HH", first, n)))
        return counts


def check_identity(device: Device, expected: identity_mod.Identity) -> tuple[identity_mod.Identity, str]:
    """The device's identity when it is the expected model's, else a DeviceError naming both."""
    found, unit = device.hello()
    if found.hash != expected.hash:
        build = lambda i: f"{'debug' if i.debug else 'release'} build"  # noqa: E731
        raise DeviceError(f"the firmware runs model '{found.name}' ({build(found)}, hash {found.hash}), not "
                          f"'{expected.name}' ({build(expected)}, hash {expected.hash}): build and flash it "
                          f"from this model", device.where)
    device.unit = unit
    return found, unit


def to_array(data: bytes, dtype, shape) -> np.ndarray:
    """Little-endian device bytes as an array of the tensor's type."""
    dt = np.dtype(dtype).newbyteorder("<")
    return np.frombuffer(data, dt).reshape(shape).astype(np.dtype(dtype))
