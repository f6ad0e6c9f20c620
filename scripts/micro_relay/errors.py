"""The one error type users see.

Every problem caused by the user's input (a bad file, an unsupported op, a dynamic dimension) is raised as
a CompileError. The CLI prints it as one line, `error: <what> (<where>)`, and exits with status 2; anything
else escaping is a bug in Micro Relay and keeps its traceback.
"""


class CompileError(Exception):
    """A problem with the user's input, reported as `error: <what> (<where>)`."""

    def __init__(self, what: str, where: str = ""):
        super().__init__(what)
        self.what = what
        self.where = where

    def __str__(self) -> str:
        text = f"{self.what} ({self.where})" if self.where else self.what
        return printable(text)


def printable(text: str) -> str:
    """`text` with control and other unprintable characters escaped (\\n, \\x00): a tensor name from a hostile
    file must not break the one-line error."""
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
