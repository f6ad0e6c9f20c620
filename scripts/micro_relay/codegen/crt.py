"""Where the C runtime is, and what the emitter reads from it: the one place each fact is written."""

from __future__ import annotations

import functools
import re
from pathlib import Path


def _crt_dir() -> Path:
    """The C runtime the compiler copies into every output folder: micro_relay/crt/ in an installed wheel (setup.py
    puts it there), else the repository's crt/ beside scripts/ (a checkout or an editable install)."""
    package = Path(__file__).resolve().parents[1]
    installed = package / "crt"
    return installed if (installed / "include" / "micro_relay").is_dir() else package.parents[1] / "crt"


CRT_DIR = _crt_dir()  # the one place that says where the CRT is


@functools.lru_cache(maxsize=None)
def crt_abi_version() -> int:
    """MR_CRT_ABI_VERSION, read from the runtime's crt.h (its one source)."""
    crt_h = (CRT_DIR / "include" / "micro_relay" / "crt.h").read_text()
    found = re.search(r"^#define MR_CRT_ABI_VERSION (\d+)$", crt_h, re.MULTILINE)
    if found is None:
        raise AssertionError("crt/include/micro_relay/crt.h defines no MR_CRT_ABI_VERSION")
    return int(found.group(1))
