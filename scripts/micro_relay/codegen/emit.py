"""Emit a planned graph as C99: NAME.h (the stable API), NAME.c (constants, parameters, invoke) and the
runtime sources its kernels live in.

The emitted text depends only on the graph and the plan: constants and parameter structs are numbered in
emission order, nothing reads the clock, the environment or hash order, so compiling twice gives the same
bytes. Weights are `static const` (flash) and aligned; the arena is one static aligned byte array, unless
the application provides its own by defining NAME_EXTERNAL_ARENA to the name of a byte array of at least
NAME_ARENA_SIZE bytes (for example placed in a linker section of its choice), or asks for a section with
the compiler's `arena_section` option.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import __version__
from ..ir.graph import Graph
from ..ir.types import DType
from ..kernels.cmsis_nn._adapters import HEADER as ADAPTER_HEADER
from ..lower import Lowered
from ..plan.memory_plan import MemoryPlan
from .c_text import c_comment

WEIGHT_ALIGN = 16

_DTYPE_MACRO = {
    DType.FLOAT32: "MR_FLOAT32",
    DType.INT8: "MR_INT8",
    DType.UINT8: "MR_UINT8",
    DType.INT16: "MR_INT16",
    DType.INT32: "MR_INT32",
    DType.INT64: "MR_INT64",
    DType.BOOL: "MR_BOOL",
}


@dataclass
class EmitContext:
    """What an op's `emit` uses to name tensors and to declare constants and parameter structs."""

    name: str
    graph: Graph
    plan: MemoryPlan
    node_index: int = 0
    declarations: list[str] = field(default_factory=list)
    constant_names: dict[str, str] = field(default_factory=dict)
    counter: int = 0

    def _fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{self.name}_{prefix}{self.counter}"

    def tensor(self, tensor: str) -> str:
        """C expression for a tensor's data pointer; NULL for an absent optional input."""
        if not tensor:
            return "NULL"
        t = self.graph.tensors[tensor]
        if t.is_constant:
            if tensor not in self.constant_names:
                ident = self._fresh("w")
                self.constant_names[tensor] = ident
                self.declarations.append("".join((
                    f"/* {c_comment(tensor)}: {t.type.dtype.value}{list(t.type.shape)} */\n"
                    f"static const {t.type.dtype.c_type} {ident}[{max(t.type.size, 1)}] MR_ALIGNED({WEIGHT_ALIGN}) = ",
                    render_array(t.data, t.type.dtype), ";")))
            return self.constant_names[tensor]
        return f"(({t.type.dtype.c_type} *)({self.name}_arena_base + {self.plan.tensor_offset(tensor)}))"

    def scratch(self) -> str:
        offset = self.plan.scratch_offset(self.node_index)
        if offset is None:
            raise AssertionError("kernel asked for scratch its op did not plan")
        return f"((void *)({self.name}_arena_base + {offset}))"

    def const_array(self, values, c_type: str) -> str:
        values = np.asarray(values)
        dtype = {"int32_t": DType.INT32, "int16_t": DType.INT16, "int8_t": DType.INT8, "float": DType.FLOAT32,
                 "int64_t": DType.INT64, "uint8_t": DType.UINT8}[c_type]
        ident = self._fresh("k")
        self.declarations.append(
            f"static const {c_type} {ident}[{max(values.size, 1)}] = {render_array(values, dtype)};"
        )
        return ident

    def params(self, struct_type: str, fields: dict) -> str:
        """Declare a constant parameter struct; returns a pointer expression to it."""
        ident = self._fresh("p")
        body = ",\n".join(f"    .{key} = {value}" for key, value in fields.items())
        self.declarations.append(f"static const {struct_type} {ident} = {{\n{body}\n}};")
        return f"&{ident}"


# Rendering constants: a 50 MB weight tensor as one Python string per element (c_text.array_initializer)
# would take gigabytes, so arrays are rendered in chunks. Integers of at most 16 bits come from a table of
# every value's text packed into a 64-bit word, gathered and masked with numpy; wider integers and floats are
# rendered per element, a chunk at a time. The text is array_initializer's to the byte (tests/codegen).
PER_LINE = 16
CHUNK = 1 << 18  # elements per chunk: a few MB of text at a time
_SEPARATORS = (", ", ",\n    ")  # within a line, and after the last value of a line


def render_array(values, dtype: DType) -> str:
    """The C initializer of `values`, as c_text.array_initializer(values, dtype) writes it."""
    flat = np.asarray(values).ravel()
    if flat.size == 0:
        return "{0}"
    pieces: list[bytes] = [b"{\n    "]
    for start in range(0, flat.size, CHUNK):
        pieces.append(_render_chunk(flat[start:start + CHUNK], dtype, start))
    last_sep = _SEPARATORS[(flat.size - 1) % PER_LINE == PER_LINE - 1]
    pieces[-1] = pieces[-1][:len(pieces[-1]) - len(last_sep)]  # no separator after the last value
    pieces.append(b"\n}")
    text = b"".join(pieces)
    del pieces
    return text.decode("ascii")


def _render_chunk(chunk: np.ndarray, dtype: DType, start: int) -> bytes:
    """Each value followed by its separator; `start`, the chunk's first element index, is a multiple of
    PER_LINE."""
    if not dtype.is_float and dtype not in (DType.INT32, DType.INT64):
        values = chunk.astype(np.int64)
        if values.min() >= _NARROW_LOW and values.max() <= _NARROW_HIGH:
            return _render_narrow(values)
    line_end = ((np.arange(start, start + chunk.size) % PER_LINE) == PER_LINE - 1).tolist()
    if dtype.is_float:
        from .c_text import float_literal

        items = [float_literal(float(v)) for v in chunk.astype(np.float32)]
    elif dtype == DType.INT64:
        items = [f"INT64_C({int(v)})" for v in chunk.tolist()]
    elif dtype == DType.INT32:
        items = ["(-2147483647 - 1)" if v == -(1 << 31) else str(v) for v in (int(x) for x in chunk.tolist())]
    else:
        items = [str(v) for v in chunk.astype(np.int64).tolist()]
    return "".join(item + _SEPARATORS[end] for item, end in zip(items, line_end)).encode("ascii")


_NARROW_LOW, _NARROW_HIGH = -(1 << 15), (1 << 16) - 1  # int8, uint8, int16, uint16 and bool values
_TABLE: list = []


def _table() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every narrow value's text followed by ", " and by ",", each packed into the 8 bytes of a uint64
    (zero padded), and their lengths."""
    if not _TABLE:
        values = range(_NARROW_LOW, _NARROW_HIGH + 1)
        for suffix in (", ", ","):
            texts = [(str(v) + suffix).encode("ascii") for v in values]
            packed = np.frombuffer(b"".join(t.ljust(8, b"\0") for t in texts), np.uint8).reshape(-1, 8)
            _TABLE.extend([packed.copy().view(np.uint64).reshape(-1), np.array([len(t) for t in texts], np.int64)])
    return tuple(_TABLE)


_LINE_BREAK = np.frombuffer(b"\n    ".ljust(8, b"\0"), np.uint8).copy().view(np.uint64)  # after ",": ",\n    "


def _render_narrow(values: np.ndarray) -> bytes:
    """Table lookups, no Python object per value: a line is 15 x "v, ", then "v," and the line break; a last
    short line is "v, " throughout (render_array drops the final separator)."""
    spaced, spaced_len, comma, comma_len = _table()
    index = values - _NARROW_LOW
    full = index.size // PER_LINE * PER_LINE
    lines = index[:full].reshape(-1, PER_LINE)
    words = np.concatenate([spaced[lines[:, :-1]], comma[lines[:, -1:]],
                            np.broadcast_to(_LINE_BREAK, (lines.shape[0], 1))], axis=1).reshape(-1)
    lengths = np.concatenate([spaced_len[lines[:, :-1]], comma_len[lines[:, -1:]],
                              np.full((lines.shape[0], 1), 5, np.int64)], axis=1).reshape(-1)
    words = np.concatenate([words, spaced[index[full:]]])
    lengths = np.concatenate([lengths, spaced_len[index[full:]]])
    text = words.view(np.uint8).reshape(-1, 8)
    return text[np.arange(8) < lengths[:, None]].tobytes()


def _io_macros(graph: Graph, macro: str, kind: str, names) -> list[str]:
    lines = []
    for index, name in enumerate(names):
        t = graph.type_of(name)
        p = f"{macro}_{kind}{index}"
        lines.append(f"/* {kind.lower()} {index}: '{c_comment(name)}' */")
        lines.append(f"#define {p}_DTYPE {_DTYPE_MACRO[t.dtype]}")
        lines.append(f"#define {p}_TYPE {t.dtype.c_type}")
        lines.append(f"#define {p}_RANK {t.rank}")
        lines.append(f"#define {p}_SHAPE {{{', '.join(str(d) for d in t.shape)}}}")
        for axis, dim in enumerate(t.shape):
            lines.append(f"#define {p}_DIM{axis} {dim}")
        lines.append(f"#define {p}_SIZE {t.size}")
        lines.append(f"#define {p}_BYTES {t.nbytes}")
        if t.quant is not None:
            lines.append(f"#define {p}_SCALE {np.format_float_scientific(np.float32(t.quant.scale), unique=True, trim='0')}f")
            lines.append(f"#define {p}_ZERO_POINT {t.quant.zero_point}")
        lines.append("")
    return lines


def emit_header(name: str, graph: Graph, plan: MemoryPlan, source: str) -> str:
    macro = name.upper()
    lines = [
        f"/* Generated by micro-relay {__version__} from {c_comment(source)}. Do not edit. */",
        f"#ifndef {macro}_H_",
        f"#define {macro}_H_",
        "",
        "#include <stddef.h>",
        "#include <stdint.h>",
        "",
        '#include "micro_relay/crt.h"',
        "",
        "#ifdef __cplusplus",
        'extern "C" {',
        "#endif",
        "",
        f"/* Exact RAM the model needs for activations and scratch (one arena, planned at compile time). */",
        f"#define {macro}_ARENA_SIZE {plan.arena_bytes}",
        f"#define {macro}_NUM_INPUTS {len(graph.inputs)}",
        f"#define {macro}_NUM_OUTPUTS {len(graph.outputs)}",
        "",
    ]
    lines += _io_macros(graph, macro, "INPUT", graph.inputs)
    lines += _io_macros(graph, macro, "OUTPUT", graph.outputs)
    lines += [
        f"/* Run the model once. Returns 0 on success. Inputs may be overwritten: refill them before each call. */",
        f"int {name}_invoke(void);",
        f"/* Input buffer `index` (inside the arena): fill it before {name}_invoke(). NULL for a bad index. */",
        f"void *{name}_input(int index);",
        f"/* Output buffer `index`: valid after {name}_invoke() until the next call. NULL for a bad index. */",
        f"const void *{name}_output(int index);",
        f"size_t {name}_input_size(int index);",
        f"size_t {name}_output_size(int index);",
        "",
        "#ifdef __cplusplus",
        "}",
        "#endif",
        "",
        f"#endif /* {macro}_H_ */",
        "",
    ]
    return "\n".join(lines)


def _accessor(name: str, kind: str, ret: str, cases: list[str], default: str) -> str:
    body = "".join(f"    case {i}: return {c};\n" for i, c in enumerate(cases))
    return f"{ret} {name}_{kind}(int index)\n{{\n    switch (index) {{\n{body}    default: return {default};\n    }}\n}}\n"


@dataclass(frozen=True)
class EmittedModel:
    files: dict[str, str]  # NAME.h and NAME.c
    kernels: tuple[str, ...]  # runtime sources crt/src/mr_<kernel>.c the model calls, in first-call order
    adapters: tuple[str, ...]  # CMSIS-NN adapters crt/cmsis_nn/mr_cmsis_<adapter>.c it calls, sorted


def emit_source(name: str, lowered: Lowered, plan: MemoryPlan, source: str,
                arena_section: str | None = None) -> tuple[str, list[str], list[str]]:
    """The model's .c text, the runtime kernel names it calls and the CMSIS-NN adapters it calls."""
    graph = lowered.graph
    macro = name.upper()
    ctx = EmitContext(name, graph, plan)
    calls: list[str] = []
    kernels: list[str] = []
    adapters: set[str] = set()
    headers: set[str] = set()
    for step, node_index in enumerate(plan.order):
        low = lowered.nodes[node_index]
        node = low.node
        ctx.node_index = node_index
        where = f"/* {step}: {node.op}{' ' + c_comment(node.name) if node.name else ''} -> {c_comment(node.outputs[0])} */"
        call = low.kernel.emit(ctx, node, low.params, low.plan)
        calls.append(f"    {where}\n    {call}" if call else f"    {where}")
        headers.update(low.plan.sources[:1])
        adapters.update(low.plan.adapters)
        for k in low.plan.sources:
            if k not in kernels:
                kernels.append(k)
    includes = "".join(f'#include "micro_relay/{k}.h"\n' for k in sorted(headers))
    if adapters:
        includes += f'#include "{ADAPTER_HEADER}"\n'  # crt/cmsis_nn/
    section = f' MR_SECTION("{arena_section}")' if arena_section else ""
    arena = (
        f"#if defined({macro}_EXTERNAL_ARENA)\n"
        f"extern uint8_t {macro}_EXTERNAL_ARENA[];\n"
        f"#define {name}_arena_base {macro}_EXTERNAL_ARENA\n"
        f"#else\n"
        f"static uint8_t {name}_arena[{max(plan.arena_bytes, 1)}] MR_ALIGNED(16){section};\n"
        f"#define {name}_arena_base {name}_arena\n"
        f"#endif\n"
    )
    inputs = [ctx.tensor(n) for n in graph.inputs]
    outputs = [ctx.tensor(n) for n in graph.outputs]
    head = [
        f"/* Generated by micro-relay {__version__} from {c_comment(source)}. Do not edit. */",
        f'#include "{name}.h"',
        "",
        "#include <float.h>",
        "#include <math.h>",
        "",
        includes,
        arena,
    ]
    tail = [
        "",
        f"int {name}_invoke(void)\n{{\n" + "\n".join(calls) + "\n    return 0;\n}\n",
        _accessor(name, "input", "void *", [f"(void *){p}" for p in inputs], "NULL"),
        _accessor(name, "output", "const void *", [f"(const void *){p}" for p in outputs], "NULL"),
        _accessor(name, "input_size", "size_t", [str(graph.type_of(n).nbytes) for n in graph.inputs], "0"),
        _accessor(name, "output_size", "size_t", [str(graph.type_of(n).nbytes) for n in graph.outputs], "0"),
    ]
    # "\n".join(head + ["\n\n".join(declarations)] + tail) in one join: the declarations hold the weights'
    # text, which is then copied once, not once per join
    pieces = ["\n".join(head), "\n"]
    for index, declaration in enumerate(ctx.declarations):
        pieces += ["\n\n", declaration] if index else [declaration]
    pieces += ["\n", "\n".join(tail)]
    ctx.declarations.clear()
    return "".join(pieces), kernels, sorted(adapters)


def emit_model(name: str, lowered: Lowered, plan: MemoryPlan, source: str,
               arena_section: str | None = None) -> EmittedModel:
    """NAME.h and NAME.c of a lowered, planned graph, with the runtime sources and adapters they call."""
    source_text, kernels, adapters = emit_source(name, lowered, plan, source, arena_section)
    files = {f"{name}.h": emit_header(name, lowered.graph, plan, source), f"{name}.c": source_text}
    return EmittedModel(files, tuple(kernels), tuple(adapters))
