"""The names a compile pastes into file names and C: the model name and the arena's linker section.

The model name NAME becomes files (NAME.h, NAME.c, NAME.plan.json beside the runtime's sources and its
micro_relay/ folder) and the prefix of every generated symbol (NAME_invoke, NAME_ARENA_SIZE). So a name is
refused when it
- is not a C identifier, or is longer than MAX_NAME_LENGTH;
- is reserved to the implementation (a leading underscore: `_x`, `__x` and `_X` are reserved at file scope);
- is a C keyword (C99 to C23);
- would shadow a header: a C standard header (`math` makes NAME.h shadow <math.h> under `-I OUT`), a
  runtime header or source (`conv2d`, `crt`), or a CMSIS-NN header the adapters include;
- starts with the runtime's `mr_` prefix (`mr_conv2d` would overwrite the kernel mr_conv2d.c), in any case,
  since NAME is also upper-cased into macros beside the runtime's MR_ ones.
Headers compare case-insensitively: on a case-insensitive file system Math.h is math.h.
Every refusal names an alternative that passes (`suggest_name`).

The section name goes into `__attribute__((section("...")))`: letters, digits, `_`, `.` and `$` only, so
nothing can close the string or the attribute.
"""

from __future__ import annotations

import re
from typing import Iterable

from ..errors import CompileError

MAX_NAME_LENGTH = 64
MAX_SECTION_LENGTH = 128

C_KEYWORDS = frozenset("""
    auto break case char const continue default do double else enum extern float for goto if inline int long
    register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while
    _Alignas _Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn _Static_assert _Thread_local
    alignas alignof bool constexpr false nullptr static_assert thread_local true typeof typeof_unqual
    _BitInt _Decimal32 _Decimal64 _Decimal128
""".split())

C_STANDARD_HEADERS = frozenset("""
    assert complex ctype errno fenv float inttypes iso646 limits locale math setjmp signal stdarg stdbool stddef
    stdint stdio stdlib string tgmath time wchar wctype
    stdalign stdatomic stdnoreturn threads uchar stdbit stdckdint
""".split())

CMSIS_NN_HEADERS = frozenset({"arm_nnfunctions", "arm_nnsupportfunctions", "arm_nn_types", "arm_nn_math_types",
                              "arm_nn_tables", "arm_nn_compiler", "arm_math_types"})

RUNTIME_PREFIX = "mr_"
RUNTIME_FOLDER = "micro_relay"
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_SECTION = re.compile(r"[.A-Za-z_][.A-Za-z0-9_$]*\Z")


def name_problem(name: str, runtime_stems: Iterable[str] = ()) -> str | None:
    """Why `name` cannot name a model, or None when it can."""
    if not name:
        return "is empty"
    if len(name) > MAX_NAME_LENGTH:
        return f"is {len(name)} characters long (at most {MAX_NAME_LENGTH})"
    if not _IDENTIFIER.match(name):
        return "is not a C identifier"
    if name.startswith("_"):
        return "starts with '_' (reserved to the C implementation)"
    if name in C_KEYWORDS:
        return "is a C keyword"
    lower = name.lower()
    if lower in C_STANDARD_HEADERS:
        return f"would shadow the C standard header <{lower}.h>"
    if lower == RUNTIME_PREFIX[:-1] or lower.startswith(RUNTIME_PREFIX):
        return f"starts with the runtime's prefix '{RUNTIME_PREFIX}'"
    if lower == RUNTIME_FOLDER or lower in {s.lower() for s in runtime_stems}:
        return f"would collide with the runtime's file {lower}.h/.c"
    if lower in CMSIS_NN_HEADERS:
        return f"would shadow the CMSIS-NN header {lower}.h"
    return None


def suggest_name(name: str, runtime_stems: Iterable[str] = ()) -> str:
    """A name close to `name` that passes every rule (`model` when nothing of it can be kept)."""
    stems = tuple(runtime_stems)
    base = re.sub(r"[^A-Za-z0-9_]", "_", name)[:MAX_NAME_LENGTH - len("_model")]
    base = base.lstrip("_0123456789")
    if base.lower().startswith(RUNTIME_PREFIX):
        base = base[len(RUNTIME_PREFIX):].lstrip("_0123456789")
    for candidate in (base, f"{base}_model"):
        if candidate and name_problem(candidate, stems) is None:
            return candidate
    return "model"


def check_model_name(name: str, runtime_stems: Iterable[str] = (), where: str = "--name") -> str:
    """`name` when it can name the model's files and symbols, else a CompileError with an alternative."""
    stems = tuple(runtime_stems)
    problem = name_problem(name, stems)
    if problem is None:
        return name
    shown = name if len(name) <= 40 else name[:40] + "..."
    shown = shown.encode("unicode_escape").decode("ascii")
    raise CompileError(f"model name '{shown}' {problem}; try --name {suggest_name(name, stems)}", where)


def check_section_name(section: str, where: str = "--arena-section") -> str:
    """`section` when it is a plain linker section name, else a CompileError."""
    shown = (section if len(section) <= 40 else section[:40] + "...").encode("unicode_escape").decode("ascii")
    if len(section) > MAX_SECTION_LENGTH:
        raise CompileError(f"section name '{shown}' is {len(section)} characters long (at most "
                           f"{MAX_SECTION_LENGTH})", where)
    if not _SECTION.match(section):
        raise CompileError(f"section name '{shown}' is not a linker section name (letters, digits, '_', '.' "
                           f"and '$', not starting with a digit or '$'; e.g. .sram2)", where)
    return section


def zeroed_partition_section(arena_section: str | None) -> str | None:
    """The arena's section when it is a memory partition's zeroed one (Zephyr's data_smem_NAME_bss, what
    K_APP_BMEM gives), else None. What a user-mode thread running the model must write besides the arena (a
    model's state, a group's owner flag) follows the arena only there: any other section may not be zeroed at
    boot (a noinit one), and those must start at zero."""
    if arena_section and re.fullmatch(r"data_smem_\w+_bss", arena_section):
        return arena_section
    return None
