"""Mutations of .tflite bytes: raw byte flips and hostile values written into named flatbuffer fields.

A field mutation (or a "constant" one: an element of an int32/int64 constant such as pad amounts, slice
bounds, axes or biases) finds where a field's bytes sit (through the `tflite` package's accessors, which know the
schema) and overwrites them in place, so the file stays a well-formed flatbuffer whose one field is hostile:
that reaches the reader's and the IR's range checks, where random byte flips mostly hit the flatbuffer's
own offsets. Every mutation is a pure function of (seed bytes, numpy Generator), so a run is reproducible
from its seed.
"""

from __future__ import annotations

import struct

import numpy as np
import tflite

INT32_VALUES = (0, 1, -1, -2, 2, 3, 4, 7, 64, 127, 128, 255, 256, 1000, 65535, 1 << 16, 1 << 24, 1 << 30,
                (1 << 31) - 1, -(1 << 31), -(1 << 30), -1000)
FLOAT_VALUES = (0.0, -0.0, -1.0, -0.05, float("nan"), float("inf"), float("-inf"), 1e-45, 1e-40, 1.2e-38,
                1e-30, 1e-20, 1e-10, 1e10, 1e20, 1e30, 3.4e38)
INT64_VALUES = (128, -129, 255, 256, 1000, -1000, 1 << 15, 1 << 31, (1 << 31) - 1, 1 << 40, -(1 << 63),
                (1 << 63) - 1)
NAME_PIECES = (b"\n", b"\r", b"/*", b"*/", b"\\", b"\"", b"\x00", b"??/", b"\x1b[2J", b"'")


def _put(buf: bytearray, pos: int, fmt: str, value) -> bool:
    size = struct.calcsize(fmt)
    if pos < 0 or pos + size > len(buf):
        return False
    buf[pos:pos + size] = struct.pack(fmt, value)
    return True


def _vector_slots(table, field: int, width: int) -> list[int]:
    """Byte positions of the elements of a vector field (vtable offset `field`), empty when absent."""
    o = table._tab.Offset(field)
    if not o:
        return []
    start, length = table._tab.Vector(o), table._tab.VectorLen(o)
    return [start + i * width for i in range(length)]


def _scalar_slot(table, field: int) -> list[int]:
    o = table._tab.Offset(field)
    return [table._tab.Pos + o] if o else []


def _table_scalar_slots(tab) -> list[int]:
    """Every present field of a table (options tables hold scalars only)."""
    vtable = tab.Pos - struct.unpack_from("<i", tab.Bytes, tab.Pos)[0]
    size = struct.unpack_from("<H", tab.Bytes, vtable)[0]
    offsets = [struct.unpack_from("<H", tab.Bytes, vtable + 4 + 2 * i)[0] for i in range((size - 4) // 2)]
    return [tab.Pos + o for o in offsets if o]


def field_slots(data: bytes) -> dict[str, list[tuple[int, str]]]:
    """Mutation class -> [(byte position, struct format)] of the fields that class overwrites."""
    model = tflite.Model.GetRootAsModel(bytearray(data), 0)
    graph = model.Subgraphs(0)
    slots: dict[str, list[tuple[int, str]]] = {k: [] for k in (
        "scale", "zero_point", "quant_axis", "shape", "tensor_type", "buffer_index", "name", "tensor_index",
        "graph_io", "opcode_index", "options_type", "options", "constant")}
    for i in range(graph.TensorsLength()):
        t = graph.Tensors(i)
        slots["shape"] += [(p, "<i") for p in _vector_slots(t, 4, 4)]
        slots["tensor_type"] += [(p, "<b") for p in _scalar_slot(t, 6)]
        slots["buffer_index"] += [(p, "<I") for p in _scalar_slot(t, 8)]
        o = t._tab.Offset(10)
        if o:
            start = t._tab.Vector(o)
            slots["name"] += [(start + k, "name") for k in range(t._tab.VectorLen(o))]
        if t.Type() in (tflite.TensorType.INT32, tflite.TensorType.INT64) and t.Buffer() > 0:
            width = 4 if t.Type() == tflite.TensorType.INT32 else 8
            buffer = model.Buffers(t.Buffer())
            slots["constant"] += [(p, "<i" if width == 4 else "<q") for p in _vector_slots(buffer, 4, 1)[::width]]
        q = t.Quantization()
        if q is not None:
            slots["scale"] += [(p, "<f") for p in _vector_slots(q, 8, 4)]
            slots["zero_point"] += [(p, "<q") for p in _vector_slots(q, 10, 8)]
            slots["quant_axis"] += [(p, "<i") for p in _scalar_slot(q, 16)]
    for i in range(graph.OperatorsLength()):
        op = graph.Operators(i)
        slots["opcode_index"] += [(p, "<I") for p in _scalar_slot(op, 4)]
        slots["tensor_index"] += [(p, "<i") for p in _vector_slots(op, 6, 4) + _vector_slots(op, 8, 4)]
        slots["options_type"] += [(p, "<B") for p in _scalar_slot(op, 10)]
        table = op.BuiltinOptions()
        if table is not None:
            slots["options"] += [(p, "<i") for p in _table_scalar_slots(table)]
    slots["graph_io"] += [(p, "<i") for p in _vector_slots(graph, 6, 4) + _vector_slots(graph, 8, 4)]
    return slots


MUTATION_CLASSES = ("bytes", "truncate", "scale", "zero_point", "quant_axis", "shape", "tensor_type",
                    "buffer_index", "name", "tensor_index", "graph_io", "opcode_index", "options_type",
                    "options", "constant")


def _hostile(rng: np.random.Generator, fmt: str):
    if fmt == "<f":
        if rng.random() < 0.3:
            return float(np.float32(np.exp(rng.uniform(-104, 88))) * rng.choice([-1, 1]))
        return FLOAT_VALUES[rng.integers(len(FLOAT_VALUES))]
    if fmt == "<q":
        return INT64_VALUES[rng.integers(len(INT64_VALUES))]
    if fmt in ("<b", "<B"):
        return int(rng.integers(0, 256)) - (128 if fmt == "<b" else 0)
    value = INT32_VALUES[rng.integers(len(INT32_VALUES))]
    if rng.random() < 0.2:
        value = int(rng.integers(-(1 << 31), 1 << 31))
    return value if fmt == "<i" else value & 0xFFFFFFFF


def mutate(data: bytes, kind: str, rng: np.random.Generator) -> bytes:
    """One mutant of `data` of class `kind` (falls back to byte flips when the seed has no such field)."""
    buf = bytearray(data)
    if kind == "truncate":
        return bytes(buf[:int(rng.integers(0, len(buf)))])
    slots = [] if kind == "bytes" else field_slots(data)[kind]
    if not slots:
        for _ in range(int(rng.integers(1, 9))):
            buf[int(rng.integers(len(buf)))] = int(rng.integers(256))
        return bytes(buf)
    for _ in range(1 if rng.random() < 0.7 else 2):
        pos, fmt = slots[int(rng.integers(len(slots)))]
        if fmt == "name":
            piece = NAME_PIECES[rng.integers(len(NAME_PIECES))]
            buf[pos:pos + len(piece)] = piece
            del buf[len(data):]  # keep the length: a piece past the name overwrites the next bytes
        elif kind == "options" and rng.random() < 0.4:
            _put(buf, pos, "<b", int(rng.integers(-128, 128)))
        else:
            _put(buf, pos, fmt, _hostile(rng, fmt))
    return bytes(buf)


def mutants(seeds, count: int, seed: int):
    """`count` (index, seed name, class, bytes), cycling through classes and seed models deterministically."""
    rng = np.random.default_rng(seed)
    for index in range(count):
        kind = MUTATION_CLASSES[index % len(MUTATION_CLASSES)]
        name, data = seeds[int(rng.integers(len(seeds)))]
        yield index, name, kind, mutate(data, kind, rng)
