"""The rewrite: a float graph and a real range per activation tensor become an int8 graph.

Step by step:
1. Refuse a graph that is already quantized (an integer activation, a quantized tensor, or a
   quantize/dequantize op): there is nothing to calibrate.
2. Give every node a type (`plan_domains`). Nodes the user keeps in float (`keep_float`, by op name, op
   name without its `nn.` prefix, or node name) are float; nodes the user names in `int16` (matched the same
   way) run with int16 activations and int8 weights (TFLite's 16x8 scheme); an op with an int8 rule
   (rules.py) is int8; an op without one is an error naming every such op, unless kept, and so is an int16
   node whose op has no int16 kernel (hard_swish, the comparisons, ...). A pure data-movement op whose data
   inputs all come from float nodes stays in float too (from int16 nodes: int16), so keeping an op in float
   does not put a quantize/dequantize pair around the reshape after it. A node that reads and writes no float tensor
   (int32 shape arithmetic, logical ops on bools) is left as it is.
3. Walk the nodes in order and emit the new graph. Each original tensor has a home version (the one its
   producer writes: int8, int16 or float) and, on demand, one version of each other type, converted from the
   home and shared by every reader: qnn.quantize for float -> int8/int16 (with the tensor's calibrated
   range) and int8 <-> int16 (a requantization), qnn.dequantize for int8/int16 -> float. Integer nodes get
   inputs of their type, quantized weights and biases (params.py) and an output quantization chosen by
   their rule; float nodes get float inputs.
4. Graph inputs and outputs keep their names. By default they stay float32 (the graph starts with
   qnn.quantize and ends with qnn.dequantize); with int8_io they are int8 carrying their quantization (the
   emitted header then defines <NAME>_INPUT0_SCALE and _ZERO_POINT). An output whose home is of another
   type is written under a suffixed name (`logits/int8`, `logits/int16`) and its conversion takes the
   output's name.
5. Verify the result and run every op's prepare, so a parameter a kernel refuses fails here, naming it.
Tensors that are not float in the float graph (bools, int32 indices) keep their type and name everywhere.
Constants read by integer nodes are replaced by int8 (or int32 bias; int16 and int64 bias in int16 nodes)
constants; a constant also read by a float node keeps its float version under its own name.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..ir.graph import Graph, Node, Tensor
from ..ir.registry import get_op
from ..ir.types import DType, Quant, TensorType
from ..ir.verify import verify
from .domains import CONVERSION_OPS, is_real, plan_domains, refuse_quantized  # noqa: F401 (re-exported)
from .params import (activation_quant, bias_quant, float32_at_least, float32_at_most, quant_range, quantize_array,
                     weight_quant)
from .rules import RULES

F32, I8, I16 = DType.FLOAT32, DType.INT8, DType.INT16
SUFFIX = {F32: "float", I8: "int8", I16: "int16"}


@dataclass(frozen=True)
class QuantizeOptions:
    """What the user chose: calibration method, weight granularity, ops kept in float, ops run with int16
    activations, integer I/O."""

    method: str = "minmax"  # minmax | percentile | mse
    percentile: float = 99.99
    per_channel: bool = True
    keep_float: tuple[str, ...] = ()
    int8_io: bool = False
    int16: tuple[str, ...] = ()


@dataclass
class Rewritten:
    """The quantized graph and where each original tensor went (for the report)."""

    graph: Graph
    int_names: dict[str, str] = field(default_factory=dict)  # original tensor -> its integer version (the home)
    quants: dict[str, Quant] = field(default_factory=dict)  # original tensor -> that version's quantization
    int_nodes: tuple[int, ...] = ()  # indices (in the float graph) of the nodes that run in int8 or int16


def rewrite(graph: Graph, ranges: dict[str, tuple[float, float]], options: QuantizeOptions = QuantizeOptions()
            ) -> Rewritten:
    """The quantized graph for these calibrated ranges (every non-constant float tensor needs one)."""
    refuse_quantized(graph)
    domains = plan_domains(graph, options.keep_float, options.int16)
    return _Emitter(graph, ranges, options, domains).emit()


class _Emitter:
    def __init__(self, graph: Graph, ranges, options: QuantizeOptions, domains: list[DType]):
        self.g, self.ranges, self.options, self.domains = graph, ranges, options, domains
        self.tensors: dict[str, Tensor] = {}
        self.nodes: list[Node] = []
        self.names: dict[DType, dict[str, str]] = {F32: {}, I8: {}, I16: {}}  # original -> its version of a type
        self.quants: dict[DType, dict[str, Quant]] = {I8: {}, I16: {}}  # original -> that version's quantization
        self.home: dict[str, DType] = {}  # original -> the type its producer writes
        self.cache: dict[tuple, str] = {}
        self.float_constants = {n for i, node in enumerate(graph.nodes) if domains[i] == F32
                                for n in node.inputs if n and graph.tensors[n].is_constant}
        self.io = I8 if options.int8_io else F32
        self.raw: dict[str, str] = {}  # a tensor that is not float in the float graph -> its name here

    # -- names and conversions -------------------------------------------------------------------------

    def fresh(self, base: str) -> str:
        name, k = base, 1
        while name in self.g.tensors or name in self.tensors:
            k += 1
            name = f"{base}{k}"
        return name

    def range_quant(self, name: str, dtype: DType) -> Quant:
        lo, hi = self.ranges[name]
        return activation_quant(lo, hi, dtype)

    def add_tensor(self, name: str, ttype: TensorType, data=None) -> str:
        self.tensors[name] = Tensor(name, ttype, data)
        return name

    def converted_name(self, name: str, dtype: DType) -> str:
        """A graph output's version in the wanted I/O type takes the output's own name."""
        if name in self.g.outputs and dtype == self.io:
            return name
        return self.fresh(f"{name}/{SUFFIX[dtype]}")

    def version(self, name: str, dtype: DType) -> str:
        """`name` as a tensor of this type: its home, else one conversion from the home, made once and shared
        (float -> int: the calibrated range; int8 <-> int16: a requantization to it; int -> float)."""
        if name in self.raw:
            return self.raw[name]
        have = self.names[dtype]
        if name in have:
            return have[name]
        source = self.names[self.home[name]][name]
        out = self.converted_name(name, dtype)
        if dtype == F32:
            self.add_tensor(out, self.g.type_of(name))
            self.nodes.append(Node("qnn.dequantize", (source,), (out,)))
        else:
            q = self.range_quant(name, dtype)
            self.add_tensor(out, TensorType(self.g.type_of(name).shape, dtype, q))
            self.nodes.append(Node("qnn.quantize", (source,), (out,)))
            self.quants[dtype][name] = q
        have[name] = out
        return out

    def requantized(self, name: str, q: Quant, dtype: DType) -> str:
        """The integer version of `name` under quantization q (a qnn.quantize int -> int when it differs)."""
        source = self.version(name, dtype)
        if self.quants[dtype][name] == q:
            return source
        key = ("requantize", name, q, dtype)
        if key not in self.cache:
            ttype = TensorType(self.g.type_of(name).shape, dtype, q)
            out = self.add_tensor(self.fresh(f"{name}/requantized"), ttype)
            self.nodes.append(Node("qnn.quantize", (source,), (out,)))
            self.cache[key] = out
        return self.cache[key]

    def constant(self, name: str, key: tuple, make) -> str:
        """A converted constant, made once per (name, key); it takes the original name unless a float node
        still reads the float one or another conversion took it."""
        full = (name, *key)
        if full not in self.cache:
            data, ttype = make(self.g.constant(name))
            taken = name in self.float_constants or name in self.tensors
            new = self.fresh(f"{name}/{ttype.dtype.value}") if taken else name
            self.cache[full] = self.add_tensor(new, ttype, data)
        return self.cache[full]

    def int_constant(self, name: str, q: Quant | None, dtype: DType) -> tuple[str, Quant]:
        data = self.g.constant(name)
        q = q or activation_quant(float(data.min(initial=0.0)), float(data.max(initial=0.0)), dtype)
        ttype = TensorType(self.g.type_of(name).shape, dtype, q)
        return self.constant(name, ("activation", q, dtype), lambda d: (quantize_array(d, q, dtype), ttype)), q

    # -- nodes -----------------------------------------------------------------------------------------

    def output_name(self, name: str, dtype: DType) -> str:
        """The name a node writes: its own, unless it is a graph output of another type than wanted."""
        if name in self.g.outputs and dtype != self.io and is_real(self.g, name):
            return self.fresh(f"{name}/{SUFFIX[dtype]}")
        return name

    def emit(self) -> Rewritten:
        g = self.g
        for name in g.inputs:
            t = g.type_of(name)
            if not is_real(g, name):
                self.tensors[name], self.raw[name] = g.tensors[name], name
                continue
            if self.io == I8:
                q = self.range_quant(name, I8)
                self.add_tensor(name, TensorType(t.shape, I8, q))
                self.tensors[name] = replace(self.tensors[name], source_axes=g.tensors[name].source_axes)
                self.quants[I8][name] = q
            else:
                self.tensors[name] = g.tensors[name]
            self.names[self.io][name], self.home[name] = name, self.io
        for index, node in enumerate(g.nodes):
            if self.domains[index] == F32:
                self.emit_float(node)
            else:
                self.emit_int(node, self.domains[index])
        for name in g.outputs:
            self.version(name, self.io)  # the output's wanted type exists under its own name
        result = Graph(self.tensors, tuple(self.nodes), g.inputs, g.outputs)
        verify(result)
        for node in result.nodes:
            get_op(node.op).prepare(result, node)
        int_nodes = tuple(i for i, d in enumerate(self.domains) if d != F32)
        int_names, quants = {}, {}
        for dtype in (I16, I8):  # the home version first, else the int8 one, else the int16 one
            for name, version in self.names[dtype].items():
                if self.home[name] in (dtype, F32) or name not in int_names:
                    int_names[name], quants[name] = version, self.quants[dtype][name]
        return Rewritten(result, int_names, quants, int_nodes)

    def emit_float(self, node: Node) -> None:
        inputs = []
        for name in node.inputs:
            if name and not is_real(self.g, name):
                inputs.append(self.raw_input(name))
            elif name and self.g.tensors[name].is_constant:
                self.tensors[name] = self.g.tensors[name]
                inputs.append(name)
            else:
                inputs.append(self.version(name, F32) if name else name)
        outputs = []
        for name in node.outputs:
            out = self.output_name(name, F32)
            self.add_tensor(out, self.g.type_of(name))
            if is_real(self.g, name):
                self.names[F32][name], self.home[name] = out, F32
            else:
                self.raw[name] = out
            outputs.append(out)
        self.nodes.append(Node(node.op, tuple(inputs), tuple(outputs), node.attrs, node.name))

    def raw_input(self, name: str) -> str:
        """A tensor that is not float in the float graph, as it is (a constant is copied in on first use)."""
        if self.g.tensors[name].is_constant:
            self.tensors[name] = self.g.tensors[name]
            return name
        return self.raw[name]

    def emit_int(self, node: Node, dtype: DType) -> None:
        g, rule = self.g, RULES[node.op]
        inputs = list(node.inputs)
        in_quants: list[Quant] = []
        out_q = None
        if rule.output == "equal_inputs":
            out_q = self.equalized_quant(node, dtype)
        for position, name in enumerate(node.inputs):
            if not name or position in (rule.weight, rule.bias):
                continue
            if not is_real(g, name):
                inputs[position] = self.raw_input(name)
                continue
            kind = I8 if position in rule.int8_inputs else dtype
            if g.tensors[name].is_constant:
                inputs[position], q = self.int_constant(name, out_q, kind)
            elif out_q is not None:
                inputs[position], q = self.requantized(name, out_q, kind), out_q
            else:
                inputs[position], q = self.version(name, kind), self.quants[kind][name]
                bounds = rule.in_scales16 if kind == I16 else rule.in_scales
                if bounds and not bounds[0] <= q.scale <= bounds[1]:
                    scale = float32_at_most(bounds[1]) if q.scale > bounds[1] else float32_at_least(bounds[0])
                    q = Quant.tensor(scale, q.zero_point)  # the same real zero, a coarser or finer step
                    inputs[position] = self.requantized(name, q, kind)
            in_quants.append(q)
        if rule.weight is not None:
            inputs[rule.weight], wq = self.weight(node.inputs[rule.weight], rule.weight_axis)
            bias = node.inputs[rule.bias] if rule.bias is not None and len(node.inputs) > rule.bias else ""
            if bias:
                bias_dtype = DType.INT64 if dtype == I16 else DType.INT32
                inputs[rule.bias] = self.bias(bias, in_quants[0].scale, wq, bias_dtype)
        (out,) = node.outputs
        if not is_real(g, out):  # a bool or an index: the type it has in the float graph
            self.raw[out] = self.add_tensor(self.output_name(out, dtype), g.type_of(out))
            self.nodes.append(Node(node.op, tuple(inputs), (self.raw[out],), node.attrs, node.name))
            return
        if rule.output == "fixed":
            out_q = Quant.tensor(*(rule.fixed16 if dtype == I16 else rule.fixed))
        elif rule.output == "same_as_input":
            out_q = in_quants[0]
        elif rule.output == "calibrated":
            lo, hi = self.ranges[out]
            ratio = rule.min_out_scale_ratio16 if dtype == I16 else rule.min_out_scale_ratio
            low, high = ratio * max(q.scale for q in in_quants), np.inf
            if rule.out_scale_bounds is not None and dtype == I8:
                bound_low, high = rule.out_scale_bounds(in_quants)
                low = max(low, bound_low)
            out_q = activation_quant(lo, hi, dtype, min_scale=low, max_scale=high)
        attrs = dict(node.attrs)
        if node.op == "nn.pad" and "pad_value" in attrs:
            attrs["pad_value"] = float(quantize_array(np.array([attrs["pad_value"]]), out_q, dtype)[0])
        name = self.output_name(out, dtype)
        self.add_tensor(name, TensorType(g.type_of(out).shape, dtype, out_q))
        self.names[dtype][out], self.quants[dtype][out], self.home[out] = name, out_q, dtype
        self.nodes.append(Node(node.op, tuple(inputs), (name,), attrs, node.name))

    def equalized_quant(self, node: Node, dtype: DType) -> Quant:
        """concatenate, maximum, minimum, where: the float-valued inputs' common quantization if they already
        share one, else one covering all."""
        values = [n for n in node.inputs if is_real(self.g, n)]
        data = [n for n in values if not self.g.tensors[n].is_constant]
        for n in data:
            self.version(n, dtype)
        quants = {self.quants[dtype][n] for n in data}
        if len(quants) == 1 and len(data) == len(values):
            return quants.pop()
        lo, hi = self.ranges[node.outputs[0]]
        for n in values:
            if self.g.tensors[n].is_constant:
                d = self.g.constant(n)
                a, b = float(d.min(initial=0.0)), float(d.max(initial=0.0))
            else:
                a, b = quant_range(self.quants[dtype][n], dtype)
            lo, hi = min(lo, a), max(hi, b)
        return activation_quant(lo, hi, dtype)

    def weight(self, name: str, axis: int) -> tuple[str, Quant]:
        axis = axis if self.options.per_channel else None
        shape = self.g.type_of(name).shape

        def make(data):
            q, quant = weight_quant(data, axis)
            return q, TensorType(shape, DType.INT8, quant)

        new = self.constant(name, ("weight", axis), make)
        return new, self.tensors[new].type.quant

    def bias(self, name: str, in_scale: float, wq: Quant, dtype: DType) -> str:
        shape = self.g.type_of(name).shape

        def make(data):
            q, quant = bias_quant(data, in_scale, wq, dtype)
            return q, TensorType(shape, dtype, quant)

        return self.constant(name, ("bias", in_scale, wq.scales, dtype), make)
