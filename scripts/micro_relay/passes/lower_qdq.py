"""QDQ lowering: float ops between dequantize and quantize nodes become integer ops.

A QDQ model (ONNX QuantizeLinear/DequantizeLinear, as onnxruntime's quantize_static writes) is a float graph
whose tensors pass through quantize -> dequantize pairs. Integer kernels run the same computation on the
quantized tensors, so, walking the nodes in order:

1. uint8 activations become int8: q8 = qu8 - 128 with zero point - 128 is the same real value, exactly.
2. A data-movement op (transpose, reshape, strided_slice, max pooling, padding, concatenation of equally
   quantized inputs) whose inputs all come from dequantize nodes with one quantization runs on the integers;
   a dequantize follows it, so the pattern continues past it.
3. An op whose inputs all come from dequantize nodes (weights: int8 constants; a bias: a float or a
   dequantized int32 constant, re-expressed at scale in_scale * w_scale) and whose output goes only to
   quantize nodes of one type (optionally through relu/relu6, which becomes the fused activation) becomes
   the integer op writing the quantize's output, if the op's integer kernel accepts those quantization
   parameters (its `prepare`). Otherwise it stays float between its dequantize and quantize nodes, except
   for ops with weights: those are refused, since running them in float would mean dequantizing weights.
   `mean`, `nn.softmax` and bilinear `image.resize2d` always stay float (KEEP_FLOAT says why).
   Integer ops that requantize an accumulator (conv, depthwise, dense, batch_matmul, add, subtract, multiply,
   and the int8 -> int8 requantize) get rounding "single" (ops/_common.py ROUNDING): a QDQ node means its
   real-valued result quantized once, and TFLite Micro's two roundings miss that by a step at times (0.2% of
   a convolution's outputs), which compounds through a network's layers.
   Some integer kernels fix their output quantization (FIXED_OUTPUT: logistic, tanh); the model's
   quantize after such an op has its own, calibrated scale and zero point. The op then writes a tensor of
   the fixed quantization and a requantize (quantize int8 -> int8, TFLite's QUANTIZE) takes it to the
   model's, unless the two are the same. That stays within one of the model's steps while the kernel's
   unit is at most two of them (its rounding error, half a unit, is then under one step, and two reals less
   than a step apart round at most one step apart); a finer model scale keeps the op in float.
4. quantize(dequantize(x)) with x's own type is x.
5. Every quantize of float values left rounds halves to even, as ONNX's QuantizeLinear does.
Dequantize nodes left without readers are removed by dead-code elimination.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..errors import CompileError
from ..ir.graph import Graph, Node, Tensor, fresh_name
from ..ir.registry import get_op, op_where
from ..ir.types import DType, Quant, TensorType

WEIGHT_OPS = frozenset({"nn.conv2d", "nn.depthwise_conv2d", "nn.dense", "nn.conv2d_transpose"})
MOVE_OPS = frozenset({"transpose", "reshape", "strided_slice", "nn.max_pool2d", "nn.pad", "concatenate"})
ACTIVATIONS = {"nn.relu": "relu", "nn.relu6": "relu6"}
QDQ = frozenset({"qnn.quantize", "qnn.dequantize"})
# Ops left in float between their dequantize and quantize. mean: ONNX and onnxruntime define a QDQ mean as an
# exact float mean rounded once; TFLite's integer mean rounds its sum and its rescale separately, which is
# one step off at times, and the layers after it amplify that (two steps at a 1-D model's logits, measured).
# A mean is one pass over its input, cheap next to the convolutions around it.
# softmax: the same, and more so: TFLite's int8 softmax (a table of exponentials in fixed point) is up to a unit
# of 1/256 from the exact one, and the attention layers after it carry that on.
# Bilinear resize: TFLite's int8 kernel interpolates in fixed point with its own rounding (1.7% of a U-Net's
# upsampled values a step from onnxruntime's, measured); ONNX means the float interpolation quantized once.
KEEP_FLOAT = frozenset({"mean", "nn.softmax"})


def _keeps_float(node: Node) -> bool:
    return node.op in KEEP_FLOAT or (node.op == "image.resize2d" and node.attrs.get("method", "linear") == "linear")
# The output quantization each int8 integer kernel assumes, by op: ops/sigmoid.py and ops/tanh.py (TFLite's
# logistic and tanh kernels compute in these units whatever the output says).
FIXED_OUTPUT = {
    ("sigmoid", DType.INT8): Quant.tensor(1 / 256, -128),
    ("tanh", DType.INT8): Quant.tensor(1 / 128, 0),
}


class _Rewriter:
    def __init__(self, graph: Graph):
        self.graph = graph
        self.tensors = dict(graph.tensors)
        self.nodes: list[Node | None] = list(graph.nodes)
        self.rename: dict[str, str] = {}

    def producer(self, name: str) -> Node | None:
        for node in self.nodes:
            if node is not None and name in node.outputs:
                return node
        return None

    def readers(self, name: str) -> list[int]:
        return [i for i, n in enumerate(self.nodes) if n is not None and name in n.inputs]

    def dequantized(self, name: str) -> str | None:
        """The integer tensor a float tensor was dequantized from, if a dequantize node wrote it."""
        node = self.producer(name)
        return node.inputs[0] if node is not None and node.op == "qnn.dequantize" else None

    def view(self, extra: list[Node]) -> Graph:
        nodes = [n for n in self.nodes if n is not None] + extra
        return Graph(self.tensors, (), self.graph.inputs, self.graph.outputs).with_nodes(nodes, self.tensors)

    def fresh(self, base: str) -> str:
        return fresh_name(self.tensors, base)


def _uint8_to_int8(graph: Graph) -> Graph:
    tensors = dict(graph.tensors)
    for name, t in graph.tensors.items():
        if t.type.dtype == DType.UINT8 and not t.is_constant and t.type.quant is not None \
                and not t.type.quant.per_channel and name not in graph.inputs and name not in graph.outputs:
            quant = Quant.tensor(t.type.quant.scale, t.type.quant.zero_point - 128)
            tensors[name] = Tensor(name, TensorType(t.type.shape, DType.INT8, quant))
    return Graph(tensors, graph.nodes, graph.inputs, graph.outputs)


def _integer_bias(rw: _Rewriter, node: Node, data: str, weight: str) -> str:
    """The bias as an int32 constant at scale in_scale * w_scale (per channel)."""
    bias = node.inputs[2]
    in_q, w_q = rw.tensors[data].type.quant, rw.tensors[weight].type.quant
    channels = rw.tensors[bias].type.shape[-1]
    scales = np.broadcast_to(np.asarray(w_q.scales, dtype=np.float64) * in_q.scale, (channels,))
    raw = rw.dequantized(bias)
    if raw is not None and rw.tensors[raw].type.dtype == DType.INT32 and rw.tensors[raw].is_constant:
        source = rw.tensors[raw]
        have = np.broadcast_to(np.asarray(source.type.quant.scales, dtype=np.float64), (channels,))
        if np.allclose(have, scales, rtol=1e-6, atol=0) and not any(source.type.quant.zero_points):
            return raw
        real = (source.data.astype(np.float64) - np.asarray(source.type.quant.zero_points)) * have
    elif rw.tensors[bias].is_constant:
        real = rw.tensors[bias].data.astype(np.float64)
    else:
        raise CompileError("bias is neither a constant nor a dequantized constant", op_where(rw.graph, node))
    values = np.clip(np.round(real / scales), -(2 ** 31), 2 ** 31 - 1).astype(np.int32)
    name = rw.fresh(bias + "_int32")
    rw.tensors[name] = Tensor(name, TensorType((channels,), DType.INT32, Quant(tuple(scales), (0,) * channels, 0)),
                              values)
    return name


def _try_integer(rw: _Rewriter, index: int, node: Node) -> bool:
    """Steps 2 and 3 for one node; True when it was rewritten."""
    weight_op = node.op in WEIGHT_OPS
    inputs = []
    for slot, name in enumerate(node.inputs):
        if not name:
            inputs.append(name)
            continue
        if weight_op and slot == 2:
            inputs.append(name)  # the bias: re-expressed below once the input and weight are known
            continue
        raw = rw.dequantized(name)
        if raw is None:
            return False
        inputs.append(raw)
    if len(node.outputs) != 1 or node.outputs[0] in rw.graph.outputs:
        return False
    out = node.outputs[0]
    if node.op in MOVE_OPS and len({rw.tensors[n].type.quant for n in inputs if n}) == 1:
        return _move(rw, index, node, inputs)
    activation, tail, quantizers = "none", out, rw.readers(out)
    if len(quantizers) == 1 and rw.nodes[quantizers[0]].op in ACTIVATIONS and "activation" in get_op(node.op).attrs \
            and node.attrs.get("activation", "none") == "none":
        act_node = rw.nodes[quantizers[0]]
        activation, tail = ACTIVATIONS[act_node.op], act_node.outputs[0]
        if tail in rw.graph.outputs:
            return False
        quantizers = [quantizers[0]] + rw.readers(tail)
        if not quantizers[1:] or any(rw.nodes[i].op != "qnn.quantize" for i in quantizers[1:]):
            return False
        quantizers = quantizers[1:]
    if not quantizers or any(rw.nodes[i].op != "qnn.quantize" for i in quantizers):
        return False
    targets = {rw.tensors[rw.nodes[i].outputs[0]].type for i in quantizers}
    if len(targets) != 1:
        return False
    target = rw.nodes[quantizers[0]].outputs[0]
    if weight_op and len(inputs) > 2 and inputs[2]:
        inputs[2] = _integer_bias(rw, node, inputs[0], inputs[1])
    fixed = _kernel_units(node, rw.tensors[target].type)
    if fixed is not None and fixed.scale > 2 * rw.tensors[target].type.quant.scale:
        return False  # the model's scale is finer than half the kernel's unit: a requantize would lose steps
    requantize = _requantize_node(rw, fixed, target, node.name) if fixed is not None else None
    written = requantize.inputs[0] if requantize else target
    candidate = replace(node, inputs=tuple(inputs), outputs=(written,))
    if activation != "none":
        candidate = candidate.with_attrs(activation=activation)
    if "rounding" in get_op(candidate.op).attrs and rw.tensors[written].type.dtype == DType.INT8:
        candidate = candidate.with_attrs(rounding="single")
    try:
        get_op(candidate.op).prepare(rw.view([candidate]), candidate)
        if requantize:
            get_op(requantize.op).prepare(rw.view([candidate, requantize]), requantize)
    except CompileError as exc:
        if requantize:
            del rw.tensors[written]
        if weight_op:
            raise CompileError(f"quantized {node.op} has no integer kernel for these parameters: {exc.what}",
                               op_where(rw.graph, node)) from None
        return False
    rw.nodes[index] = candidate
    for i in quantizers[1:]:
        rw.rename[rw.nodes[i].outputs[0]] = target
    for i in quantizers:
        rw.nodes[i] = None
    if tail != out:  # the activation node is now part of the op
        for i, n in enumerate(rw.nodes):
            if n is not None and n.outputs == (tail,):
                rw.nodes[i] = None
    if requantize:
        rw.nodes.insert(index + 1, requantize)
    return True


def _kernel_units(node: Node, want: TensorType) -> Quant | None:
    """The output quantization the op's integer kernel computes in (FIXED_OUTPUT), when the model's quantize
    after it asks for another; None when the kernel follows the model's output quantization."""
    fixed = FIXED_OUTPUT.get((node.op, want.dtype))
    if fixed is None or want.quant is None or _same_quant(want.quant, fixed):
        return None
    return fixed


def _requantize_node(rw: _Rewriter, fixed: Quant, target: str, name: str) -> Node:
    """quantize(int8 -> int8) from a new tensor in the kernel's units (which the op will write) to `target`."""
    want = rw.tensors[target].type
    written = rw.fresh(target + "_fixed")
    rw.tensors[written] = Tensor(written, TensorType(want.shape, want.dtype, fixed))
    return Node("qnn.quantize", (written,), (target,), {"rounding": "single"} if want.dtype == DType.INT8 else {},
                name=name)


def _same_quant(a: Quant, b: Quant) -> bool:
    """Equal per-tensor quantization as a float32 kernel parameter sees it."""
    return not a.per_channel and a.zero_point == b.zero_point and np.float32(a.scale) == np.float32(b.scale)


def _move(rw: _Rewriter, index: int, node: Node, inputs: list[str]) -> bool:
    out = node.outputs[0]
    quant = rw.tensors[inputs[0]].type.quant
    dtype = rw.tensors[inputs[0]].type.dtype
    integer = rw.fresh(out + "_q")
    rw.tensors[integer] = Tensor(integer, TensorType(rw.tensors[out].type.shape, dtype, quant))
    candidate = replace(node, inputs=tuple(inputs), outputs=(integer,))
    try:
        get_op(candidate.op).prepare(rw.view([candidate]), candidate)
    except CompileError:
        del rw.tensors[integer]
        return False
    rw.nodes[index] = candidate
    rw.nodes.insert(index + 1, Node("qnn.dequantize", (integer,), (out,), {}, name=node.name))
    return True


def _drop_identity_requantize(rw: _Rewriter) -> None:
    """Step 4."""
    for i, node in enumerate(rw.nodes):
        if node is None or node.op != "qnn.quantize":
            continue
        raw = rw.dequantized(node.inputs[0])
        out = node.outputs[0]
        if raw is not None and rw.tensors[raw].type == rw.tensors[out].type and out not in rw.graph.outputs:
            rw.rename[out] = raw
            rw.nodes[i] = None


def _onnx_ties(rw: _Rewriter, node: Node) -> Node:
    """Step 5: a QuantizeLinear of float values rounds halves to even (ONNX), not away from zero (TFLite)."""
    if node.op == "qnn.quantize" and rw.tensors[node.inputs[0]].type.dtype.is_float:
        return node.with_attrs(ties="even")
    return node


def lower_qdq(graph: Graph) -> Graph:
    if not any(n.op == "qnn.dequantize" for n in graph.nodes):
        return graph
    rw = _Rewriter(_uint8_to_int8(graph))
    index = 0
    while index < len(rw.nodes):
        node = rw.nodes[index]
        if node is not None and node.op not in QDQ and not _keeps_float(node):
            node = replace(node, inputs=tuple(rw.rename.get(n, n) for n in node.inputs))
            rw.nodes[index] = node
            _try_integer(rw, index, node)
        index += 1
    _drop_identity_requantize(rw)
    for _ in range(len(rw.rename)):  # resolve chains of renames
        rw.rename = {k: rw.rename.get(v, v) for k, v in rw.rename.items()}
    nodes = [replace(n, inputs=tuple(rw.rename.get(x, x) for x in n.inputs)) for n in rw.nodes if n is not None]
    nodes = [_onnx_ties(rw, n) for n in nodes]
    return Graph(rw.tensors, (), graph.inputs, graph.outputs).with_nodes(nodes, rw.tensors)
