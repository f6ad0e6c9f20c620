"""The op registry: every Micro Relay op, its attribute schema, type inference and semantics.

Each op lives in its own file under `micro_relay/ops/` and registers one `OpDef` subclass. An op knows:
- its attribute schema (`attrs`: name -> `Attr`), checked by the verifier and used by the text parser;
- `infer`: output types from input types and attributes (static shapes only);
- `prepare`: the compile-time constants of its arithmetic (fixed-point multipliers, clamps, padding, folded
  biases), computed once per compile (lower/), shared by the reference interpreter and the kernels so that
  both run the same arithmetic; it refuses what no kernel can compute exactly;
- `reference`: numpy semantics, bit-exact with TFLite Micro for integer types.
- `macs`: multiply-accumulates per inference (reports and benchmarks).
How a core runs the op (scratch, access order, the C call, the cost) belongs to its kernels (kernels/).
Ops that only reinterpret memory (reshape) set `alias = True`: the planner gives the output the input's bytes;
element-wise ops set `inplace = True`: out[i] depends on in0[i] only, so the output may take input 0's bytes.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..errors import CompileError
from .graph import Graph, Node
from .types import TensorType


@dataclass(frozen=True)
class Attr:
    """One attribute of an op: its Python kind, default (None means required) and allowed values."""

    kind: type
    default: Any = None
    choices: tuple = ()

    @property
    def required(self) -> bool:
        return self.default is None


class OpDef:
    """Base of every op definition; subclasses override what their op needs."""

    name: ClassVar[str] = ""
    attrs: ClassVar[dict[str, Attr]] = {}
    num_inputs: ClassVar[tuple[int, int]] = (1, 1)  # (min, max); absent optional inputs are ""
    alias: ClassVar[bool] = False  # output is the input's bytes reinterpreted (no copy)
    inplace: ClassVar[bool] = False  # output may take the bytes of input 0 when that input dies here
    # the op stores input 1 into the state tensor input 0 (assign): it has no outputs, and dead-code
    # elimination keeps it; the interpreter, planner and emitter give it the state's storage
    writes_state: ClassVar[bool] = False
    dtypes: ClassVar[tuple] = ()  # element types (ir.types.DType) the op computes, as `micro-relay ops` lists them

    def infer(self, graph: Graph, node: Node) -> list[TensorType]:
        raise NotImplementedError

    def prepare(self, graph: Graph, node: Node) -> dict:
        """Compile-time kernel parameters; raise CompileError for combinations the kernel can't run."""
        return {}

    def reference(self, graph: Graph, node: Node, params: dict, inputs: list[np.ndarray]) -> list[np.ndarray]:
        raise NotImplementedError

    def macs(self, graph: Graph, node: Node) -> int:
        """Multiply-accumulates per inference (for reports and benchmarks)."""
        return 0

    def view_offset(self, graph: Graph, node: Node) -> int | None:
        """Where output 0 lies in input 0's bytes when it is one contiguous run of them (the planner then gives
        it those bytes and no code runs), else None. An alias op's output is all of them, from byte 0."""
        return 0 if self.alias else None

    def input_offsets(self, graph: Graph, node: Node) -> tuple[int, ...] | None:
        """Where each input lies in output 0's bytes when each is one contiguous run of them (the planner may
        then have each input's producer write it there, and no code runs), else None."""
        return None


_REGISTRY: dict[str, OpDef] = {}
_LOADED = False


def register(cls: type[OpDef]) -> type[OpDef]:
    """Class decorator: add an op definition to the registry under its `name`."""
    if not cls.name or cls.name in _REGISTRY:
        raise RuntimeError(f"op name {cls.name!r} is empty or registered twice")
    _REGISTRY[cls.name] = cls()
    return cls


def _load_ops() -> None:
    """Import every module of micro_relay.ops once (importing one op first must not hide the others)."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    from .. import ops

    for module in sorted(m.name for m in pkgutil.iter_modules(ops.__path__)):
        importlib.import_module(f"{ops.__name__}.{module}")


def get_op(name: str, where: str = "") -> OpDef:
    _load_ops()
    op = _REGISTRY.get(name)
    if op is None:
        raise CompileError(f"unknown op '{name}'", where)
    return op


def all_ops() -> dict[str, OpDef]:
    _load_ops()
    return dict(sorted(_REGISTRY.items()))


def op_where(graph: Graph, node: Node) -> str:
    """How errors locate a node: its index, label and output tensor."""
    index = graph.nodes.index(node) if node in graph.nodes else -1
    return f"node {index} {node.label}, tensor '{node.outputs[0] if node.outputs else ''}'"


