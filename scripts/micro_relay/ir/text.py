"""The Relay-like text form of a Micro Relay graph: print, and parse back to an equal graph.

    def @main(%x: Tensor[(1, 4), int8, quant(0.5, -3)]) -> (%y) {
      %w = constant(Tensor[(2, 4), int8, quant(axis=0, [0.1, 0.2], [0, 0])], "AQIDBAUGBwg=")
      %y: Tensor[(1, 2), int8, quant(0.25, 1)] = nn.dense(%x, %w, _, activation="relu")
      return (%y)
    }

Names are `%name`, quoted as `%"conv/Relu:0"` when they are not identifiers; `_` is an absent optional
input. Constants carry their bytes in base64 (little-endian), or `...` when printed with elide_data=True
(an elided graph is for reading, not for parsing). Attribute values are Python literals. A state tensor is
`%s = state(Tensor[...], "<initial bytes>")`, and a node without outputs (assign) is written as a bare call,
`assign(%s, %v)`.
"""

from __future__ import annotations

import ast
import base64
import re

import numpy as np

from ..errors import CompileError
from .graph import Graph, Node, Tensor
from .types import DType, Quant, TensorType

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*\Z")


def _name(name: str) -> str:
    return "%" + (name if _IDENT.match(name) else '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"')


def format_type(t: TensorType) -> str:
    shape = "(" + ", ".join(str(d) for d in t.shape) + ("," if len(t.shape) == 1 else "") + ")"
    parts = [shape, t.dtype.value]
    q = t.quant
    if q is not None:
        if q.axis is None:
            parts.append(f"quant({q.scale!r}, {q.zero_point})")
        else:
            scales = ", ".join(repr(s) for s in q.scales)
            zps = ", ".join(str(z) for z in q.zero_points)
            parts.append(f"quant(axis={q.axis}, [{scales}], [{zps}])")
    return "Tensor[" + ", ".join(parts) + "]"


def _format_attr(value) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_format_attr(v) for v in value) + "]"
    return repr(value)


def print_graph(graph: Graph, elide_data: bool = False) -> str:
    """The text form of a graph; constants elided to `...` when elide_data is set."""
    params = ", ".join(f"{_name(n)}: {format_type(graph.type_of(n))}" for n in graph.inputs)
    outs = ", ".join(_name(n) for n in graph.outputs)
    lines = [f"def @main({params}) -> ({outs}) {{"]
    for name, tensor in graph.tensors.items():
        if tensor.is_constant or tensor.is_state:
            value = tensor.data if tensor.is_constant else tensor.initial
            if elide_data:
                payload = "..."
            else:
                raw = np.ascontiguousarray(value, dtype=tensor.type.dtype.numpy.newbyteorder("<")).tobytes()
                payload = '"' + base64.b64encode(raw).decode("ascii") + '"'
            kind = "constant" if tensor.is_constant else "state"
            lines.append(f"  {_name(name)} = {kind}({format_type(tensor.type)}, {payload})")
    for node in graph.nodes:
        outs_decl = ", ".join(f"{_name(o)}: {format_type(graph.type_of(o))}" for o in node.outputs)
        args = [_name(i) if i else "_" for i in node.inputs]
        args += [f"{k}={_format_attr(v)}" for k, v in sorted(node.attrs.items())]
        label = f"  # {node.name}" if node.name else ""
        lines.append(f"  {outs_decl + ' = ' if outs_decl else ''}{node.op}({', '.join(args)}){label}")
    lines.append(f"  return ({outs})")
    lines.append("}")
    return "\n".join(lines) + "\n"


_TOKEN = re.compile(
    r"""\s*(?:
      (?P<comment>\#[^\n]*)
    | (?P<name>%(?:[A-Za-z_][A-Za-z0-9_.]*|"(?:[^"\\]|\\.)*"))
    | (?P<global>@[A-Za-z_][A-Za-z0-9_]*)
    | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
    | (?P<number>-?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|inf|nan))
    | (?P<ident>[A-Za-z_][A-Za-z0-9_.]*)
    | (?P<arrow>->)
    | (?P<ellipsis>\.\.\.)
    | (?P<punct>[()\[\]{},:=])
    )""",
    re.VERBOSE,
)


class _Tokens:
    def __init__(self, text: str):
        self.items: list[tuple[str, str, int]] = []
        self.comments: dict[int, str] = {}
        pos, line = 0, 1
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m or m.end() == pos:
                if text[pos:].strip() == "":
                    break
                raise CompileError(f"cannot read {text[pos:pos + 20].strip()!r}", f"text line {line}")
            line += text.count("\n", pos, m.end())
            pos = m.end()
            kind = m.lastgroup
            if kind == "comment":
                self.comments[line] = m.group(kind)[1:].strip()
            else:
                self.items.append((kind, m.group(kind), line))
        self.i = 0

    def peek(self, value: str | None = None, kind: str | None = None) -> bool:
        if self.i >= len(self.items):
            return False
        k, v, _ = self.items[self.i]
        return (value is None or v == value) and (kind is None or k == kind)

    def take(self, value: str | None = None, kind: str | None = None) -> str:
        if not self.peek(value, kind):
            got = self.items[self.i][1] if self.i < len(self.items) else "end of text"
            raise CompileError(f"expected {value or kind}, got {got!r}", f"text line {self.line}")
        self.i += 1
        return self.items[self.i - 1][1]

    @property
    def line(self) -> int:
        return self.items[min(self.i, len(self.items) - 1)][2] if self.items else 0


def _unname(token: str) -> str:
    body = token[1:]
    return ast.literal_eval(body) if body.startswith('"') else body


def _parse_list(tok: _Tokens) -> list:
    tok.take("[")
    values = []
    while not tok.peek("]"):
        values.append(_parse_value(tok))
        if not tok.peek("]"):
            tok.take(",")
    tok.take("]")
    return values


def _parse_value(tok: _Tokens):
    if tok.peek("["):
        return tuple(_parse_list(tok))
    if tok.peek(kind="string"):
        return ast.literal_eval(tok.take(kind="string"))
    if tok.peek(kind="number"):
        text = tok.take(kind="number")
        return float(text) if any(c in text for c in ".eEni") else int(text)
    word = tok.take(kind="ident")
    if word in ("True", "False"):
        return word == "True"
    raise CompileError(f"unexpected attribute value {word!r}", f"text line {tok.line}")


def _parse_type(tok: _Tokens) -> TensorType:
    tok.take("Tensor")
    tok.take("[")
    tok.take("(")
    shape = []
    while not tok.peek(")"):
        shape.append(int(tok.take(kind="number")))
        if not tok.peek(")"):
            tok.take(",")
    tok.take(")")
    tok.take(",")
    dtype = DType.parse(tok.take(kind="ident"))
    quant = None
    if tok.peek(","):
        tok.take(",")
        tok.take("quant")
        tok.take("(")
        if tok.peek("axis"):
            tok.take("axis")
            tok.take("=")
            axis = int(tok.take(kind="number"))
            tok.take(",")
            scales = tuple(float(s) for s in _parse_list(tok))
            tok.take(",")
            zps = tuple(int(z) for z in _parse_list(tok))
            quant = Quant(scales, zps, axis)
        else:
            scale = float(tok.take(kind="number"))
            tok.take(",")
            quant = Quant.tensor(scale, int(tok.take(kind="number")))
        tok.take(")")
    tok.take("]")
    return TensorType(tuple(shape), dtype, quant)


def parse_graph(text: str) -> Graph:
    """Parse the text form back into a Graph (the inverse of print_graph without elision)."""
    tok = _Tokens(text)
    tensors: dict[str, Tensor] = {}
    nodes: list[Node] = []
    tok.take("def")
    tok.take("@main")
    tok.take("(")
    inputs = []
    while not tok.peek(")"):
        name = _unname(tok.take(kind="name"))
        tok.take(":")
        tensors[name] = Tensor(name, _parse_type(tok))
        inputs.append(name)
        if not tok.peek(")"):
            tok.take(",")
    tok.take(")")
    tok.take(kind="arrow")
    tok.take("(")
    while not tok.peek(")"):
        tok.take(kind="name")
        if not tok.peek(")"):
            tok.take(",")
    tok.take(")")
    tok.take("{")
    outputs: list[str] = []
    while not tok.peek("}"):
        if tok.peek("return"):
            tok.take("return")
            tok.take("(")
            while not tok.peek(")"):
                outputs.append(_unname(tok.take(kind="name")))
                if not tok.peek(")"):
                    tok.take(",")
            tok.take(")")
            continue
        line = tok.line
        if tok.peek(kind="ident"):  # a node without outputs
            nodes.append(_parse_call(tok, tensors, (), line))
            continue
        first = _unname(tok.take(kind="name"))
        if tok.peek("="):
            tok.take("=")
            kind = "state" if tok.peek("state") else "constant"
            tok.take(kind)
            tok.take("(")
            ttype = _parse_type(tok)
            tok.take(",")
            if tok.peek(kind="ellipsis"):
                raise CompileError("constant data is elided ('...'); print without elision to parse", f"text line {line}")
            raw = base64.b64decode(ast.literal_eval(tok.take(kind="string")))
            data = np.frombuffer(raw, dtype=ttype.dtype.numpy.newbyteorder("<")).astype(ttype.dtype.numpy)
            data = data.reshape(ttype.shape)
            tensors[first] = Tensor(first, ttype, data) if kind == "constant" else Tensor(first, ttype, initial=data)
            tok.take(")")
            continue
        outs = [first]
        tok.take(":")
        tensors[first] = Tensor(first, _parse_type(tok))
        while tok.peek(","):
            tok.take(",")
            name = _unname(tok.take(kind="name"))
            tok.take(":")
            tensors[name] = Tensor(name, _parse_type(tok))
            outs.append(name)
        tok.take("=")
        nodes.append(_parse_call(tok, tensors, tuple(outs), line))
    tok.take("}")
    return Graph(tensors, tuple(nodes), tuple(inputs), tuple(outputs))


def _parse_call(tok: _Tokens, tensors: dict, outs: tuple, line: int) -> Node:
    """`op(args, key=value, ...)  # name`, the right-hand side of a node line."""
    op = tok.take(kind="ident")
    tok.take("(")
    args: list[str] = []
    attrs: dict = {}
    while not tok.peek(")"):
        if tok.peek(kind="name"):
            args.append(_unname(tok.take(kind="name")))
        elif tok.peek("_"):
            tok.take("_")
            args.append("")
        else:
            key = tok.take(kind="ident")
            tok.take("=")
            attrs[key] = _parse_value(tok)
        if not tok.peek(")"):
            tok.take(",")
    end_line = tok.items[tok.i][2]
    tok.take(")")
    for arg in args:
        if arg and arg not in tensors:
            raise CompileError(f"tensor '{arg}' is used before it is defined", f"text line {line}")
    return Node(op, tuple(args), outs, attrs, tok.comments.get(end_line, ""))
