"""The rewrite: a float graph and a real range per activation tensor become an int8 graph.

Step by step:
1. Refuse a graph that is already quantized (an integer activation, a quantized tensor, or a
   quantize/dequantize op): there is nothing to calibrate.
2. Give every node a domain (`plan_domains`). Nodes the user keeps in float (`keep_float`, by op name, op
   name without its `nn.` prefix, or node name) are float; an op with an int8 rule (rules.py) is int8; an op
   without one is an error naming every such op, unless kept. A pure data-movement op whose data inputs all
   come from float nodes stays in float too, so keeping an op in float does not put a quantize/dequantize
   pair around the reshape after it.
3. Walk the nodes in order and emit the new graph. Each original tensor has a home version (the one its
   producer writes, int8 or float) and, on demand, one converted version made by an inserted
   qnn.quantize (float -> int8, with the tensor's calibrated quantization) or qnn.dequantize node, shared by
   every reader. Int8 nodes get int8 inputs, quantized weights and biases (params.py) and an output
   quantization chosen by their rule; float nodes get float inputs.
4. Graph inputs and outputs keep their names. By default they stay float32 (the graph starts with
   qnn.quantize and ends with qnn.dequantize); with int8_io they are int8 carrying their quantization (the
   emitted header then defines <NAME>_INPUT0_SCALE and _ZERO_POINT). An output whose home is of the other
   type is written under a suffixed name (`logits/int8`) and its conversion takes the output's name.
5. Verify the result and run every op's prepare, so a parameter a kernel refuses fails here, naming it.
Constants read by int8 nodes are replaced by int8 (or int32 bias) constants; a constant also read by a float
node keeps its float version under its own name.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import CompileError
from ..ir.graph import Graph, Node, Tensor
from ..ir.registry import get_op, op_where
from ..ir.types import DType, Quant, TensorType
from ..ir.verify import verify
from .params import activation_quant, bias_quant, quant_range, quantize_array, weight_quant
from .rules import RULES

QUANTIZED_DTYPES = (DType.INT8, DType.UINT8, DType.INT16)
CONVERSION_OPS = ("qnn.quantize", "qnn.dequantize")


@dataclass(frozen=True)
class QuantizeOptions:
    """What the user chose: calibration method, weight granularity, ops kept in float, integer I/O."""

    method: str = "minmax"  # minmax | percentile | mse
    percentile: float = 99.99
    per_channel: bool = True
    keep_float: tuple[str, ...] = ()
    int8_io: bool = False


@dataclass
class Rewritten:
    """The int8 graph and where each original tensor went (for the report)."""

    graph: Graph
    int_names: dict[str, str] = field(default_factory=dict)  # original tensor -> its int8 version
    quants: dict[str, Quant] = field(default_factory=dict)  # original tensor -> that version's quantization
    int_nodes: tuple[int, ...] = ()  # indices (in the float graph) of the nodes that run in int8


def refuse_quantized(graph: Graph) -> None:
    for node in graph.nodes:
        if node.op in CONVERSION_OPS:
            raise CompileError(f"model is already quantized (it has a {node.op} op); compile it without --quantize",
                               op_where(graph, node))
    for name, tensor in graph.tensors.items():
        t = tensor.type
        if t.quant is not None or t.dtype in QUANTIZED_DTYPES:
            raise CompileError("model is already quantized; compile it without --quantize",
                               f"tensor '{name}' is {t.dtype.value}")


def plan_domains(graph: Graph, keep_float=()) -> list[str]:
    """'int' or 'float' per node; raises the one-line error naming the ops with no int8 kernel."""
    kept: set[int] = set()
    for wanted in keep_float:
        hits = {i for i, n in enumerate(graph.nodes) if wanted in (n.op, n.op.removeprefix("nn."), n.name)}
        if not hits:
            ops = ", ".join(sorted({n.op for n in graph.nodes}))
            raise CompileError(f"--keep-float '{wanted}' matches no op of the model (its ops: {ops})", "--keep-float")
        kept |= hits
    missing = sorted({n.op for i, n in enumerate(graph.nodes) if i not in kept and n.op not in RULES})
    if missing:
        hint = " ".join(f"--keep-float {op}" for op in missing)
        raise CompileError(f"no int8 kernel for op{'s' if len(missing) > 1 else ''} {', '.join(missing)}; "
                           f"to keep {'them' if len(missing) > 1 else 'it'} in float pass {hint}", "--quantize int8")
    for i, node in enumerate(graph.nodes):
        rule = RULES.get(node.op)
        if i in kept or rule is None or rule.weight is None:
            continue
        params = [node.inputs[k] for k in (rule.weight, rule.bias) if k < len(node.inputs) and node.inputs[k]]
        if not all(graph.tensors[n].is_constant for n in params):
            raise CompileError(f"int8 {node.op} needs a constant weight and bias; to keep it in float pass "
                               f"--keep-float {node.op}", op_where(graph, node))
    producer = graph.producers()
    domains: list[str] = []
    for i, node in enumerate(graph.nodes):
        data = [n for n in node.inputs if n and not graph.tensors[n].is_constant]
        from_float_nodes = data and all(n in producer and domains[producer[n]] == "float" for n in data)
        if i in kept or (RULES[node.op].follows_input and from_float_nodes):
            domains.append("float")
        else:
            domains.append("int")
    return domains


def rewrite(graph: Graph, ranges: dict[str, tuple[float, float]], options: QuantizeOptions = QuantizeOptions()
            ) -> Rewritten:
    """The int8 graph for these calibrated ranges (every non-constant float tensor needs one)."""
    refuse_quantized(graph)
    domains = plan_domains(graph, options.keep_float)
    return _Emitter(graph, ranges, options, domains).emit()


class _Emitter:
    def __init__(self, graph: Graph, ranges, options: QuantizeOptions, domains: list[str]):
        self.g, self.ranges, self.options, self.domains = graph, ranges, options, domains
        self.tensors: dict[str, Tensor] = {}
        self.nodes: list[Node] = []
        self.int_name: dict[str, str] = {}
        self.float_name: dict[str, str] = {}
        self.quant: dict[str, Quant] = {}
        self.cache: dict[tuple, str] = {}
        self.float_constants = {n for i, node in enumerate(graph.nodes) if domains[i] == "float"
                                for n in node.inputs if n and graph.tensors[n].is_constant}
        self.io = "int" if options.int8_io else "float"

    # -- names and conversions -------------------------------------------------------------------------

    def fresh(self, base: str) -> str:
        name, k = base, 1
        while name in self.g.tensors or name in self.tensors:
            k += 1
            name = f"{base}{k}"
        return name

    def range_quant(self, name: str) -> Quant:
        lo, hi = self.ranges[name]
        return activation_quant(lo, hi)

    def add_tensor(self, name: str, ttype: TensorType, data=None) -> str:
        self.tensors[name] = Tensor(name, ttype, data)
        return name

    def converted_name(self, name: str, domain: str) -> str:
        """A graph output's version in the wanted I/O type takes the output's own name."""
        if name in self.g.outputs and domain == self.io:
            return name
        return self.fresh(f"{name}/{'int8' if domain == 'int' else 'float'}")

    def to_int(self, name: str) -> str:
        if name in self.int_name:
            return self.int_name[name]
        q = self.range_quant(name)
        out = self.converted_name(name, "int")
        self.add_tensor(out, TensorType(self.g.type_of(name).shape, DType.INT8, q))
        self.nodes.append(Node("qnn.quantize", (self.float_name[name],), (out,)))
        self.int_name[name], self.quant[name] = out, q
        return out

    def to_float(self, name: str) -> str:
        if name in self.float_name:
            return self.float_name[name]
        out = self.converted_name(name, "float")
        self.add_tensor(out, self.g.type_of(name))
        self.nodes.append(Node("qnn.dequantize", (self.int_name[name],), (out,)))
        self.float_name[name] = out
        return out

    def requantized(self, name: str, q: Quant) -> str:
        """The int8 version of `name` under quantization q (a qnn.quantize int8 -> int8 when it differs)."""
        source = self.to_int(name)
        if self.quant[name] == q:
            return source
        key = ("requantize", name, q)
        if key not in self.cache:
            ttype = TensorType(self.g.type_of(name).shape, DType.INT8, q)
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
            self.cache[full] = self.add_tensor(self.fresh(f"{name}/int8") if taken else name, ttype, data)
        return self.cache[full]

    def int_constant(self, name: str, q: Quant | None = None) -> tuple[str, Quant]:
        data = self.g.constant(name)
        q = q or activation_quant(float(data.min(initial=0.0)), float(data.max(initial=0.0)))
        ttype = TensorType(self.g.type_of(name).shape, DType.INT8, q)
        return self.constant(name, ("activation", q), lambda d: (quantize_array(d, q), ttype)), q

    # -- nodes -----------------------------------------------------------------------------------------

    def output_name(self, name: str, domain: str) -> str:
        """The name a node writes: its own, unless it is a graph output of the other type than wanted."""
        if name in self.g.outputs and domain != self.io:
            return self.fresh(f"{name}/{'int8' if domain == 'int' else 'float'}")
        return name

    def emit(self) -> Rewritten:
        g = self.g
        for name in g.inputs:
            t = g.type_of(name)
            if self.io == "int":
                q = self.range_quant(name)
                self.add_tensor(name, TensorType(t.shape, DType.INT8, q))
                self.int_name[name], self.quant[name] = name, q
            else:
                self.tensors[name] = g.tensors[name]
                self.float_name[name] = name
        for index, node in enumerate(g.nodes):
            if self.domains[index] == "float":
                self.emit_float(node)
            else:
                self.emit_int(node)
        for name in g.outputs:
            self.finish_output(name)
        result = Graph(self.tensors, tuple(self.nodes), g.inputs, g.outputs)
        verify(result)
        for node in result.nodes:
            get_op(node.op).prepare(result, node)
        int_nodes = tuple(i for i, d in enumerate(self.domains) if d == "int")
        return Rewritten(result, dict(self.int_name), dict(self.quant), int_nodes)

    def finish_output(self, name: str) -> None:
        """Make the graph output's wanted version (float, or int8 with int8_io) exist under its own name."""
        versions = self.float_name if self.io == "float" else self.int_name
        if name not in versions:
            (self.to_float if self.io == "float" else self.to_int)(name)

    def emit_float(self, node: Node) -> None:
        inputs = []
        for name in node.inputs:
            if name and self.g.tensors[name].is_constant:
                self.tensors[name] = self.g.tensors[name]
                inputs.append(name)
            else:
                inputs.append(self.to_float(name) if name else name)
        outputs = []
        for name in node.outputs:
            out = self.output_name(name, "float")
            self.add_tensor(out, self.g.type_of(name))
            self.float_name[name] = out
            outputs.append(out)
        self.nodes.append(Node(node.op, tuple(inputs), tuple(outputs), node.attrs, node.name))

    def emit_int(self, node: Node) -> None:
        g, rule = self.g, RULES[node.op]
        inputs = list(node.inputs)
        in_quants: list[Quant] = []
        out_q = None
        if rule.output == "equal_inputs":
            out_q = self.equalized_quant(node)
        for position, name in enumerate(node.inputs):
            if not name or position in (rule.weight, rule.bias):
                continue
            if g.tensors[name].is_constant:
                inputs[position], q = self.int_constant(name, out_q)
            elif out_q is not None:
                inputs[position], q = self.requantized(name, out_q), out_q
            else:
                inputs[position], q = self.to_int(name), self.quant[name]
            in_quants.append(q)
        if rule.weight is not None:
            inputs[rule.weight], wq = self.weight(node.inputs[rule.weight], rule.weight_axis)
            bias = node.inputs[rule.bias] if rule.bias is not None and len(node.inputs) > rule.bias else ""
            if bias:
                inputs[rule.bias] = self.bias(bias, in_quants[0].scale, wq)
        (out,) = node.outputs
        if rule.output == "fixed":
            out_q = Quant.tensor(*rule.fixed)
        elif rule.output == "same_as_input":
            out_q = in_quants[0]
        elif rule.output == "calibrated":
            lo, hi = self.ranges[out]
            out_q = activation_quant(lo, hi, min_scale=rule.min_out_scale_ratio * max(q.scale for q in in_quants))
        attrs = dict(node.attrs)
        if node.op == "nn.pad" and "pad_value" in attrs:
            attrs["pad_value"] = float(quantize_array(np.array([attrs["pad_value"]]), out_q)[0])
        name = self.output_name(out, "int")
        self.add_tensor(name, TensorType(g.type_of(out).shape, DType.INT8, out_q))
        self.int_name[out], self.quant[out] = name, out_q
        self.nodes.append(Node(node.op, tuple(inputs), (name,), attrs, node.name))

    def equalized_quant(self, node: Node) -> Quant:
        """concatenate: the inputs' common quantization if they already share one, else one covering all."""
        data = [n for n in node.inputs if n and not self.g.tensors[n].is_constant]
        for n in data:
            self.to_int(n)
        quants = {self.quant[n] for n in data}
        if len(quants) == 1 and len(data) == len(node.inputs):
            return quants.pop()
        lo, hi = self.ranges[node.outputs[0]]
        for n in node.inputs:
            if self.g.tensors[n].is_constant:
                d = self.g.constant(n)
                a, b = float(d.min(initial=0.0)), float(d.max(initial=0.0))
            else:
                a, b = quant_range(self.quant[n])
            lo, hi = min(lo, a), max(hi, b)
        return activation_quant(lo, hi)

    def weight(self, name: str, axis: int) -> tuple[str, Quant]:
        axis = axis if self.options.per_channel else None
        shape = self.g.type_of(name).shape

        def make(data):
            q, quant = weight_quant(data, axis)
            return q, TensorType(shape, DType.INT8, quant)

        new = self.constant(name, ("weight", axis), make)
        return new, self.tensors[new].type.quant

    def bias(self, name: str, in_scale: float, wq: Quant) -> str:
        shape = self.g.type_of(name).shape

        def make(data):
            q, quant = bias_quant(data, in_scale, wq)
            return q, TensorType(shape, DType.INT32, quant)

        return self.constant(name, ("bias", in_scale, wq.scales), make)
