"""apache-tvm's chatter kept off the terminal.

The importer and the onnx package talk: Python warnings (onnx's checker, renamed inputs), prints on stdout
("Error converting operator ..."), numpy RuntimeWarnings from constant folding, and C++ log lines from the
tvm runtime written straight to file descriptor 2 ("BlockBuilder destroyed with remaining blocks!"). The
user should see one line, the error or the compile summary. `captured()` collects all of it, at the
file-descriptor level as well, and shows it on stderr only when MICRO_RELAY_DEBUG=1.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
import traceback
import warnings

DEBUG_ENV = "MICRO_RELAY_DEBUG"


class Capture:
    """What the code inside `captured()` printed, warned and logged (filled in when the block ends)."""

    def __init__(self):
        self.text = ""
        self.failure = ""  # a formatted traceback kept for the debug output

    def keep_traceback(self, exc: BaseException) -> None:
        self.failure = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


def debugging() -> bool:
    return os.environ.get(DEBUG_ENV, "") not in ("", "0")


@contextlib.contextmanager
def _file_descriptors_to(sink):
    """fds 1 and 2 point at `sink` inside the block (nothing happens where they cannot be duplicated)."""
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        with contextlib.suppress(Exception):
            stream.flush()
    try:
        saved = [os.dup(1), os.dup(2)]
    except OSError:
        yield
        return
    try:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        yield
    finally:
        for stream in (sys.__stdout__, sys.__stderr__):
            with contextlib.suppress(Exception):
                stream.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])


@contextlib.contextmanager
def captured(label: str):
    """Run the block with its warnings, prints and C++ log lines collected into the yielded Capture."""
    capture = Capture()
    python_out = io.StringIO()
    caught: list = []
    with tempfile.TemporaryFile() as sink:
        try:
            with _file_descriptors_to(sink), warnings.catch_warnings(record=True) as caught, \
                    contextlib.redirect_stdout(python_out), contextlib.redirect_stderr(python_out):
                warnings.simplefilter("always")
                yield capture
        finally:
            sink.seek(0)
            parts = [f"{w.category.__name__}: {w.message} ({w.filename}:{w.lineno})" for w in caught]
            parts += [python_out.getvalue(), sink.read().decode("utf-8", "replace"), capture.failure]
            capture.text = "\n".join(p.rstrip("\n") for p in parts if p.strip())
            if debugging() and capture.text:
                print(f"{DEBUG_ENV}: output of {label}:\n{capture.text}", file=sys.stderr)


def converting_node(exc: BaseException):
    """The ONNX node apache-tvm's importer was converting when `exc` was raised, if the traceback shows it."""
    node = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_name in ("_construct_nodes", "_convert_operator"):
            node = tb.tb_frame.f_locals.get("node", node)
        tb = tb.tb_next
    return node


def first_line(exc: BaseException) -> str:
    """A one-line summary of an exception from tvm or onnx (their messages run over many lines; tvm's C++
    errors end with the useful line, after a backtrace)."""
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    text = next((line for line in reversed(lines) if not line.startswith(("File ", "at ", "^", "#"))), "") \
        if len(lines) > 1 and "Traceback" in lines[0] else (lines[0] if lines else "")
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
