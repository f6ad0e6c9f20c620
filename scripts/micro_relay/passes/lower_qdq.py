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
   One-input element-wise int8 ops (sigmoid, tanh, abs, elu, hard_swish) get rounding "single" too: their
   kernel is then a 256-entry table of the ONNX meaning, dequantize -> float op -> quantize (ops/_unary.py
   quantized_once), for whatever output quantization the model's quantize asks for. TFLite's logistic and
   tanh kernels would compute in their own fixed units (1/256, 1/128) and need a second rounding to the
   model's scale (55-86% of an EfficientNet's sigmoid outputs equal onnxruntime's that way, measured).
   An add, subtract, multiply or divide of an int8 tensor and a constant scalar becomes a `lookup` of the
   table of its float32 meaning, before any of that (ops/lookup.py: such ops sit on rounding ties).
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
# element-wise ops of an int8 tensor and a constant scalar that become a `lookup` table (float32 IEEE operations)
SCALAR_TABLE_OPS = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide}
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
    if node.op in SCALAR_TABLE_OPS and _scalar_table(rw, index, node, inputs):
        return True
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
    candidate = replace(node, inputs=tuple(inputs), outputs=(target,))
    if activation != "none":
        candidate = candidate.with_attrs(activation=activation)
    if "rounding" in get_op(candidate.op).attrs and rw.tensors[target].type.dtype == DType.INT8:
        candidate = candidate.with_attrs(rounding="single")
    try:
        get_op(candidate.op).prepare(rw.view([candidate]), candidate)
    except CompileError as exc:
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
    return True


def _dequantize_f32(t: Tensor, q: np.ndarray) -> np.ndarray:
    """DequantizeLinear as onnxruntime computes it: (q - zero) * scale, one float32 multiply."""
    quant = t.type.quant
    return (q.astype(np.int32) - quant.zero_point).astype(np.float32) * np.float32(quant.scale)


def _scalar_table(rw: _Rewriter, index: int, node: Node, inputs: list[str]) -> bool:
    """An add, subtract, multiply or divide of an int8 tensor and a dequantized constant scalar, quantized to
    int8: a `lookup` of the 256-entry table of its float32 meaning (ops/lookup.py says why)."""
    runtime = [k for k, n in enumerate(inputs) if not rw.tensors[n].is_constant]
    constant = [k for k, n in enumerate(inputs) if rw.tensors[n].is_constant]
    if len(inputs) != 2 or len(runtime) != 1 or len(constant) != 1:
        return False
    x, c = rw.tensors[inputs[runtime[0]]], rw.tensors[inputs[constant[0]]]
    if x.type.dtype != DType.INT8 or c.type.size != 1 or x.type.quant is None or x.type.quant.per_channel \
            or c.type.quant is None or rw.tensors[node.outputs[0]].type.shape != x.type.shape:
        return False
    quantizers = rw.readers(node.outputs[0])
    if not quantizers or any(rw.nodes[i].op != "qnn.quantize" for i in quantizers):
        return False
    targets = {rw.tensors[rw.nodes[i].outputs[0]].type for i in quantizers}
    target = rw.nodes[quantizers[0]].outputs[0]
    want = rw.tensors[target].type
    if len(targets) != 1 or want.dtype != DType.INT8 or want.quant is None or want.quant.per_channel:
        return False
    xf = _dequantize_f32(x, np.arange(-128, 128))
    cf = _dequantize_f32(c, c.data.reshape(-1))[0]
    a, b = (xf, cf) if runtime[0] == 0 else (cf, xf)
    with np.errstate(all="ignore"):
        y = SCALAR_TABLE_OPS[node.op](np.float32(a), np.float32(b)).astype(np.float32)
        q = np.rint(y / np.float32(want.quant.scale)).astype(np.float64) + want.quant.zero_point
    q = np.where(np.isnan(q), want.quant.zero_point, q)
    table = rw.fresh(target + "_table")
    rw.tensors[table] = Tensor(table, TensorType((256,), DType.INT8), data=np.clip(q, -128, 127).astype(np.int8))
    rw.nodes[index] = Node("lookup", (inputs[runtime[0]], table), (target,), {}, name=node.name)
    for i in quantizers[1:]:
        rw.rename[rw.nodes[i].outputs[0]] = target
    for i in quantizers:
        rw.nodes[i] = None
    return True


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
