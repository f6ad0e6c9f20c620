"""Names from a model file as error messages show them.

A model's names are the user's data: they may hold newlines (which would split the one-line error), `/*`
or `*/` (which the generated C's comments must not meet), other control characters, invalid UTF-8 (the
protobuf runtime then hands over bytes, not str) or thousands of characters. `shown` turns any of them
into a short printable quoted string and never raises.
"""

from __future__ import annotations

from ...errors import printable

MAX_SHOWN = 120


def escaped(text) -> str:
    """Printable text on one line (control and other non-printable characters as \\n, \\xNN or \\uNNNN, as
    every CompileError prints them), comment delimiters as `/\\*` and `*\\/`; bytes are decoded with invalid
    UTF-8 shown as \\xNN."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", "backslashreplace")
    return printable(str(text)).replace("/*", "/\\*").replace("*/", "*\\/")


def shown(name) -> str:
    """A model name quoted for a message: 'name', escaped, shortened past MAX_SHOWN characters."""
    text = escaped(name)
    if len(text) > MAX_SHOWN:
        text = text[:MAX_SHOWN] + f"...({len(text)} characters)"
    return f"'{text}'"


def is_text(name) -> bool:
    """Protobuf gives bytes for a string field that is not valid UTF-8."""
    return isinstance(name, str)
