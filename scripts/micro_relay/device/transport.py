"""Byte channels to a device: a serial port (a board's UART, a pty) or a Unix socket (an emulator's UART).

A serial port is opened with pyserial when it is installed (any platform it supports) and otherwise as a plain
POSIX tty in raw mode (termios), so the device commands need no extra package on Linux and macOS. Both are read
through their file descriptor with select(), so a device that stops answering is a time-out, never a hang.
"""

from __future__ import annotations

import os
import select
import subprocess
import socket
import time

from ..errors import CompileError

BAUD_RATE = 115200


class DeviceTimeout(Exception):
    """No byte arrived within the time-out."""


class Transport:
    """read(n) returns exactly n bytes or raises DeviceTimeout when `timeout` seconds pass without one."""

    timeout: float = 10.0

    def fileno(self) -> int:
        raise NotImplementedError

    def _read_some(self, n: int) -> bytes | None:
        """Up to n bytes; b"" when the channel is closed, None when nothing is there after all."""
        raise NotImplementedError

    def write(self, data: bytes) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def read(self, n: int) -> bytes:
        data = b""
        while len(data) < n:
            ready, _, _ = select.select([self.fileno()], [], [], self.timeout)
            if not ready:
                raise DeviceTimeout(f"no answer within {self.timeout:g} s")
            chunk = self._read_some(n - len(data))
            if chunk is None:
                continue
            if not chunk:
                raise DeviceTimeout("the device closed the channel")
            data += chunk
        return data

    def discard_input(self) -> None:
        """Drop whatever the device has sent and nobody read (after a time-out or a damaged reply)."""
        while select.select([self.fileno()], [], [], 0.05)[0]:
            if self._read_some(4096) == b"":
                return


class SocketTransport(Transport):
    """A Unix socket QEMU serves a UART on (-chardev socket,server=on); waits for it to appear."""

    def __init__(self, path: str, timeout: float, wait: float = 30.0):
        self.timeout = timeout
        deadline = time.monotonic() + wait
        while True:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                self.sock.connect(path)
                return
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise CompileError("the emulator's UART socket did not appear", path) from None
                time.sleep(0.05)

    def fileno(self) -> int:
        return self.sock.fileno()

    def _read_some(self, n: int) -> bytes:
        return self.sock.recv(n)

    def write(self, data: bytes) -> None:
        self.sock.sendall(data)

    def close(self) -> None:
        self.sock.close()


class TtyTransport(Transport):
    """A serial port: pyserial's Serial when installed, else the tty opened raw with termios."""

    def __init__(self, path: str, timeout: float, baud: int = BAUD_RATE):
        self.timeout = timeout
        try:
            import serial  # pyserial, optional
        except ImportError:
            serial = None
        try:
            if serial is not None:
                self.port = serial.Serial(path, baud, timeout=0, write_timeout=timeout)
                self.fd = self.port.fileno()
            else:
                self.port = None
                self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
                _raw(self.fd, baud)
        except (OSError, ValueError) as exc:
            detail = getattr(exc, "strerror", None) or str(exc)
            raise CompileError(f"cannot open the serial port: {detail}", path) from None
        except Exception as exc:  # pyserial's SerialException
            raise CompileError(f"cannot open the serial port: {exc}", path) from None

    def fileno(self) -> int:
        return self.fd

    def _read_some(self, n: int) -> bytes:
        try:
            return os.read(self.fd, n)
        except BlockingIOError:
            return None  # readable a moment ago, empty now: select again
        except OSError:  # the device went away (a pty whose other side closed)
            return b""

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            if not select.select([], [self.fd], [], self.timeout)[1]:
                raise DeviceTimeout(f"the port took no byte within {self.timeout:g} s")
            try:
                view = view[os.write(self.fd, view):]
            except BlockingIOError:
                continue
            except OSError as exc:
                raise DeviceTimeout(f"the port refused the bytes: {exc.strerror or exc}") from None

    def close(self) -> None:
        if self.port is not None:
            self.port.close()
        else:
            os.close(self.fd)


def _raw(fd: int, baud: int) -> None:
    """Raw 8N1 at `baud`: no echo, no line editing, no CR/LF translation, no flow control."""
    import termios

    attrs = termios.tcgetattr(fd)
    attrs[0] = 0  # iflag
    attrs[1] = 0  # oflag
    attrs[2] = termios.CS8 | termios.CREAD | termios.CLOCAL  # cflag
    attrs[3] = 0  # lflag
    speed = getattr(termios, f"B{baud}", termios.B115200)
    attrs[4] = attrs[5] = speed
    attrs[6][termios.VMIN] = 0
    attrs[6][termios.VTIME] = 0
    termios.tcsetattr(fd, termios.TCSANOW, attrs)


def stop_program(process) -> None:
    """End a program the host started to serve a transport (QEMU, a native_sim build): asked, then forced."""
    process.terminate()
    try:
        process.wait(5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
