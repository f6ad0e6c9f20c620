"""Test-only ops and a small graph builder for the planner tests.

The planner only asks an op whether it is an alias or may run in place, and its kernel (kernels/) how much
scratch it needs and how far below its input its output may start (KernelPlan), so the tests register tiny
ops of their own (names under `test.plan.`, inference only) with portable kernels of their own instead of
depending on real ones. Tensors are int8 vectors, so a tensor of N elements is N bytes.
"""

from __future__ import annotations

from micro_relay.ir.graph import Graph, Node, Tensor
from micro_relay.ir.registry import OpDef, all_ops, register
from micro_relay.ir.types import DType, TensorType
from micro_relay.kernels.base import Kernel, KernelPlan
from micro_relay.kernels.registry import all_kernels, kernel

UNARY = "test.plan.unary"
BINARY = "test.plan.binary"
CONCAT = "test.plan.concat"
INPLACE_UNARY = "test.plan.inplace_unary"
INPLACE_BINARY = "test.plan.inplace_binary"
ALIAS = "test.plan.alias"
SCRATCH = "test.plan.scratch"
LAGGED = "test.plan.lagged"  # a window kernel: its output may start `delta` bytes below its input 0
ROOMY = "test.plan.roomy"  # scratch `base` bytes, or any of `offers` (faster, larger first); `entry`: its function
VIEW = "test.plan.view"  # output 0 is input 0's bytes from byte `at` on (OpDef.view_offset)


class _TestOp(OpDef):
    dtypes = (DType.INT8,)  # what tests/kernels/test_registry.py asks of every registered op

    def infer(self, graph, node):
        return [graph.type_of(name) for name in node.outputs]


class _Unary(_TestOp):
    name = UNARY


class _Binary(_TestOp):
    name = BINARY
    num_inputs = (2, 2)


class _Concat(_TestOp):
    name = CONCAT
    num_inputs = (1, 8)


class _InplaceUnary(_TestOp):
    name = INPLACE_UNARY
    inplace = True


class _InplaceBinary(_TestOp):
    name = INPLACE_BINARY
    num_inputs = (2, 2)
    inplace = True


class _Alias(_TestOp):
    name = ALIAS
    alias = True


class _View(_TestOp):
    name = VIEW

    def view_offset(self, graph, node):
        return node.attrs["at"]


class _Scratch(_TestOp):
    name = SCRATCH


class _Lagged(_TestOp):
    name = LAGGED
    num_inputs = (1, 2)


class _Roomy(_TestOp):
    name = ROOMY


class _TestKernel(Kernel):
    backend = "portable"

    def emit(self, ctx, node, params, plan):
        return ""


def _kernel_of(op_name: str, **methods) -> type[Kernel]:
    return type(f"_Kernel_{op_name.rsplit('.', 1)[-1]}", (_TestKernel,), {"op": op_name, **methods})


class _ScratchKernel(_TestKernel):
    op = SCRATCH

    def plan(self, target, graph, node, params, options):
        return KernelPlan(scratch_bytes=node.attrs["scratch"])


class _LaggedKernel(_TestKernel):
    op = LAGGED

    def plan(self, target, graph, node, params, options):
        return KernelPlan(overlap_delta=node.attrs["delta"])


class _RoomyKernel(_TestKernel):
    """Scratch `base` bytes, or the `scratch` option (one of `offers`); its function `entry` (if set), with
    _roomy when a variant is taken: a variant with a function of its own."""

    op = ROOMY
    options = {"scratch": None}

    def plan(self, target, graph, node, params, options):
        chosen = options["scratch"]
        entry = node.attrs.get("entry", "")
        return KernelPlan(scratch_bytes=node.attrs["base"] if chosen is None else chosen,
                          entry=entry + "_roomy" if entry and chosen is not None else entry)

    def variants(self, target, graph, node, params, plan):
        return tuple({"scratch": s} for s in node.attrs["offers"])


all_ops()  # load the real ops and kernels first: the registries only load them while they are empty
all_kernels()
for _cls in (_Unary, _Binary, _Concat, _InplaceUnary, _InplaceBinary, _Alias, _View, _Scratch, _Lagged, _Roomy):
    try:
        register(_cls)
    except RuntimeError:  # another import of this module registered it already
        pass
for _kernel_cls in (*(_kernel_of(n) for n in (UNARY, BINARY, CONCAT, INPLACE_UNARY, INPLACE_BINARY, ALIAS, VIEW)),
                    _ScratchKernel, _LaggedKernel, _RoomyKernel):
    try:
        kernel(_kernel_cls)
    except RuntimeError:
        pass


class Builder:
    """Build a graph node by node: `b.node(op, [inputs], "out", nbytes)` returns the output's name."""

    def __init__(self):
        self.tensors: dict[str, Tensor] = {}
        self.nodes: list[Node] = []
        self.inputs: list[str] = []

    def _tensor(self, name: str, nbytes: int) -> str:
        assert name not in self.tensors, name
        self.tensors[name] = Tensor(name, TensorType((nbytes,), DType.INT8))
        return name

    def input(self, name: str, nbytes: int) -> str:
        self.inputs.append(self._tensor(name, nbytes))
        return name

    def node(self, op: str, inputs: list[str], out: str, nbytes: int, **attrs) -> str:
        self._tensor(out, nbytes)
        self.nodes.append(Node(op, tuple(inputs), (out,), attrs, name=out))
        return out

    def graph(self, *outputs: str) -> Graph:
        return Graph(self.tensors, tuple(self.nodes), tuple(self.inputs), tuple(outputs))
