"""C text helpers: identifiers, array initializers and literals, deterministic to the byte."""

from __future__ import annotations

import re

import numpy as np

from ..ir.types import DType


def c_identifier(text: str) -> str:
    """A C identifier from a file stem or tensor name: non-alphanumerics become '_', no leading digit."""
    ident = re.sub(r"[^A-Za-z0-9_]", "_", text)
    if not ident or ident[0].isdigit():
        ident = "m_" + ident
    return ident


def c_comment(text: str) -> str:
    """`text` safe inside a /* */ comment: unprintable and non-ASCII characters escaped (no line breaks), no
    trigraph, and no '/*' or '*/' that would nest or end the comment."""
    text = "".join(c if " " <= c <= "~" else c.encode("unicode_escape").decode("ascii") for c in text)
    while "*/" in text or "/*" in text or "??" in text:
        text = text.replace("*/", "* /").replace("/*", "/ *").replace("??", "? ?")
    return text


def array_initializer(values: np.ndarray, dtype: DType, per_line: int = 16) -> str:
    flat = np.asarray(values).ravel()
    if dtype.is_float:
        items = [float_literal(float(v)) for v in flat.astype(np.float32)]
    elif dtype == DType.INT64:
        items = [f"INT64_C({int(v)})" for v in flat]
    elif dtype == DType.UINT64:
        items = [f"UINT64_C({int(v)})" for v in flat]
    elif dtype == DType.INT32:
        items = [("(-2147483647 - 1)" if int(v) == -(1 << 31) else str(int(v))) for v in flat]
    else:
        items = [str(int(v)) for v in flat.astype(np.int64)]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "{\n    " + ",\n    ".join(lines) + "\n}" if lines else "{0}"


FLT_MAX = float(np.finfo(np.float32).max)


def float_literal(value: float) -> str:
    """The shortest float32 literal that parses back to the same float (INFINITY/NAN need <math.h>)."""
    v = np.float32(value)
    if np.isnan(v):
        return "NAN"
    if np.isinf(v):
        return "INFINITY" if v > 0 else "(-INFINITY)"
    if float(v) == FLT_MAX:
        return "FLT_MAX"
    if float(v) == -FLT_MAX:
        return "(-FLT_MAX)"
    return np.format_float_scientific(v, unique=True, trim="0") + "f"
