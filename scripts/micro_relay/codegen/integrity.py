"""Weight integrity: the CRC-32 of a model's constant arrays, which NAME_verify() checks flash against.

The CRC runs over the arrays NAME.c declares (codegen/constants.py's weights, biases, requantization and
tables; not the parameter structs, whose bytes hold pointers the linker chooses), in declaration order, each as
the core stores it: its elements in the core's byte order, NaN as C's NAN (0x7fc00000). Little-endian is every
core Micro Relay targets; NAME.c also carries the big-endian value, chosen by __BYTE_ORDER__. The CRC is zlib's
(crc32.h), so a host tool can recompute it from an image's symbols.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

import numpy as np

from ..ir.types import DType

RUNTIME = "crc32"  # crt/src/mr_crc32.c and micro_relay/crc32.h
C_NAN_BITS = 0x7FC00000


def stored_bytes(values, dtype: DType, byteorder: str = "<") -> bytes:
    """The bytes of a declared constant array of `values` (at least one element: an empty one is declared
    {0}) in the byte order `byteorder` ("<" or ">")."""
    flat = np.asarray(values).reshape(-1)
    if flat.size == 0:
        flat = np.zeros(1, dtype.numpy)
    flat = flat.astype(dtype.numpy)
    if dtype == DType.FLOAT32:
        bits = flat.view(np.uint32).copy()
        bits[np.isnan(flat)] = C_NAN_BITS
        flat = bits
    return flat.astype(flat.dtype.newbyteorder(byteorder)).tobytes()


@dataclass
class WeightsCrc:
    """The running CRC-32 of the arrays declared so far, in both byte orders, and their C names."""

    arrays: list[str] = field(default_factory=list)
    little: int = 0
    big: int = 0

    def add(self, ident: str, values, dtype: DType) -> None:
        self.arrays.append(ident)
        self.little = zlib.crc32(stored_bytes(values, dtype, "<"), self.little)
        self.big = zlib.crc32(stored_bytes(values, dtype, ">"), self.big)

    @property
    def text(self) -> str:
        """'0x1a2b3c4d', as NAME.plan.json and the budget line name it."""
        return f"0x{self.little:08x}"


def header_lines(name: str, crc: WeightsCrc) -> list[str]:
    macro = name.upper()
    return [
        f"/* CRC-32 (zlib's) of the model's {len(crc.arrays)} constant arrays as a little-endian core stores them.",
        f" * {name}_verify() recomputes it over flash: MR_OK, or MR_ERR_WEIGHTS when a weight byte differs (after",
        " * a firmware update, or with the weights in external flash). 10 instructions a byte on a Cortex-M4. */",
        f"#define {macro}_WEIGHTS_CRC32 {crc.text}u",
        f"int {name}_verify(void);",
        "",
    ]


def verify_function(name: str, crc: WeightsCrc) -> str:
    """NAME_verify(): the spans table of the constant arrays and the check against the CRC for this byte
    order."""
    macro = name.upper()
    spans = ",\n".join(f"    {{{ident}, sizeof {ident}}}" for ident in crc.arrays) or "    {NULL, 0}"
    return (
        f"static const mr_const_span {name}_constant_spans[] = {{\n{spans}\n}};\n\n"
        f"int {name}_verify(void)\n{{\n"
        "#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__\n"
        f"    const uint32_t expected = 0x{crc.big:08x}u;\n"
        "#else\n"
        f"    const uint32_t expected = {macro}_WEIGHTS_CRC32;\n"
        "#endif\n"
        f"    return mr_verify_spans({name}_constant_spans, {len(crc.arrays)}u, expected);\n"
        "}\n"
    )
