"""Files the user names as inputs (a model, calibration data, input arrays): regular files only.

Checked with stat before opening: reading a FIFO or a device would block, or never end."""

from __future__ import annotations

import stat
from pathlib import Path

from .errors import CompileError


def require_regular_file(path: Path, label: str) -> None:
    """Refuse `path` unless it is a regular file; `label` names its role ('model', 'calibration'). A missing
    file raises FileNotFoundError, for the caller to word."""
    mode = path.stat().st_mode
    if stat.S_ISDIR(mode):
        raise CompileError(f"{label} path is a directory", str(path))
    if not stat.S_ISREG(mode):
        raise CompileError(f"{label} path is not a regular file (a {_file_kind(mode)})", str(path))


def _file_kind(mode: int) -> str:
    for test, kind in ((stat.S_ISFIFO, "FIFO"), (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"),
                       (stat.S_ISSOCK, "socket")):
        if test(mode):
            return kind
    return "special file"
