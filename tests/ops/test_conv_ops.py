"""nn.conv2d, nn.depthwise_conv2d and nn.conv2d_transpose on graphs built directly in the IR.

Three implementations of each op meet here: the compiled C kernel, the vectorized numpy reference (windows,
matrix products, a scatter canvas), and a naive transcription of TFLite Micro's reference loops below
(loop order, skipped out-of-image taps, accumulate-then-requantize). Integer outputs must be equal bit for
bit, float outputs too (all three add in TFLite Micro's order, without FMA). The cases cover what the
TFLite frontend cannot express: asymmetric padding, windows with no tap in the image, groups, weights that
are not constants. TFLite Micro itself is the oracle in test_conv_vs_tflm.py and the conformance suites.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from micro_relay.arith.fixedpoint import mbqm32, mbqm64
from micro_relay.compiler import compile_graph, write_output
from micro_relay.errors import CompileError
from micro_relay.ir.graph import Graph, Node, Tensor
from micro_relay.ir.registry import get_op
from micro_relay.ir.text import parse_graph, print_graph
from micro_relay.ir.types import DType, Quant, TensorType
from micro_relay.ir.verify import verify
from micro_relay.lower import lower
from micro_relay.reference import run as reference_run
from support.c_harness import build_host_program, run_host_program
from support.model_check import random_inputs

SPREAD = {DType.INT8: 74.0, DType.INT16: 18918.0}  # typical |q - zp| of uniform random inputs


def make_graph(op: str, x_shape, w_shape, dtype: DType, attrs: dict, *, bias="default", per_channel=True,
               in_zp=0, out_zp=0, const_weight=True, seed=0) -> Graph:
    """x (graph input) -> op(x, w, bias) -> y, with random weights and an output scale that keeps most
    outputs inside the quantized range."""
    rng = np.random.default_rng(seed)
    channel_axis = 3 if op == "nn.depthwise_conv2d" else 0
    channels = w_shape[channel_axis]
    terms = int(np.prod(w_shape)) // channels
    if dtype == DType.FLOAT32:
        x_t = TensorType(tuple(x_shape), dtype)
        w = (rng.standard_normal(w_shape) / math.sqrt(terms)).astype(np.float32)
        w_t = TensorType(tuple(w_shape), dtype)
        bias_dtype = DType.FLOAT32 if bias == "default" else bias
        bias_data = None if bias_dtype is None else rng.standard_normal(channels).astype(np.float32)
        out_quant = None
    else:
        in_scale = 0.05
        x_t = TensorType(tuple(x_shape), dtype, Quant.tensor(in_scale, in_zp))
        w = rng.integers(-127, 128, w_shape).astype(np.int8)
        scales = [float(0.01 * 2.0 ** e) for e in rng.uniform(-1, 1, channels)] if per_channel else [0.01]
        w_quant = Quant(tuple(scales), (0,) * len(scales), channel_axis) if per_channel else Quant.tensor(0.01, 0)
        w_t = TensorType(tuple(w_shape), DType.INT8, w_quant)
        typical = SPREAD[dtype] * 73.0 * math.sqrt(terms)
        bias_dtype = {DType.INT8: DType.INT32, DType.INT16: DType.INT64}[dtype] if bias == "default" else bias
        bias_data = None
        if bias_dtype is not None:
            limit = min(int(typical), int(np.iinfo(bias_dtype.numpy).max))
            bias_data = rng.integers(-limit, limit + 1, channels).astype(bias_dtype.numpy)
        out_scale = in_scale * float(np.mean(scales)) * typical * 3.0 / dtype.max
        out_quant = Quant.tensor(out_scale, out_zp)
    tensors = {"x": Tensor("x", x_t), "w": Tensor("w", w_t, w if const_weight else None)}
    inputs = ["x"] if const_weight else ["x", "w"]
    if bias_data is not None:
        tensors["b"] = Tensor("b", TensorType((channels,), bias_dtype), bias_data)
    node = Node(op, ("x", "w", "b" if bias_data is not None else ""), ("y",), attrs)
    tensors["y"] = Tensor("y", TensorType((1,), dtype, out_quant))  # placeholder until the op infers it
    probe = Graph(tensors, (node,), tuple(inputs), ("y",))
    (y_t,) = get_op(op).infer(probe, node)
    tensors["y"] = Tensor("y", TensorType(y_t.shape, dtype, out_quant))
    return verify(Graph(tensors, (node,), tuple(inputs), ("y",)))


def compiled_outputs(graph: Graph, samples, tmp_path) -> list[np.ndarray]:
    model = compile_graph(graph, "conv_case", "test graph")
    write_output(model, tmp_path)
    exe = build_host_program(tmp_path, "conv_case")
    y = graph.type_of("y")
    return [out[0] for out in run_host_program(exe, samples, [(y.dtype.numpy, y.shape)])]


# ---- TFLite Micro's reference loops, transcribed naively (slow: small cases only) ----

def _finish_int(acc: int, c: int, p: dict) -> int:
    scaled = int(mbqm64(acc, p["mult"][c], p["shift"][c]) if p["wide"] else mbqm32(acc, p["mult"][c], p["shift"][c]))
    return min(max(scaled + p["out_zp"], p["act_min"]), p["act_max"])


def _finish_float(total, bias, c: int, p: dict, always_add_bias: bool):
    if bias is not None:
        total = np.float32(total + bias[c])
    elif always_add_bias:
        total = np.float32(total + np.float32(0.0))
    return min(max(total, np.float32(p["act_min"])), np.float32(p["act_max"]))  # NaN-free here


def naive(graph: Graph, x: np.ndarray, w: np.ndarray) -> np.ndarray:
    node = graph.nodes[0]
    op = get_op(node.op)
    p = op.prepare(graph, node)
    g = p["geometry"]
    bias = graph.constant("b") if node.inputs[2] else None
    is_float = x.dtype == np.float32
    y = np.zeros(graph.type_of("y").shape, dtype=x.dtype)
    zp = 0 if is_float else p["in_zp"]

    def dot(terms):
        if is_float:
            total = np.float32(0.0)
            for a, b in terms:
                total = np.float32(total + np.float32(a) * np.float32(b))
            return total
        return sum((int(a) - zp) * int(b) for a, b in terms)

    if node.op == "nn.conv2d_transpose":
        acc = np.zeros(y.shape, dtype=object if not is_float else np.float32)
        for b_, iy, ix, ic, fy, fx, oc in np.ndindex(g.batches, g.in_h, g.in_w, g.in_c, g.k_h, g.k_w, g.out_c):
            oy, ox = iy * g.stride_h - g.pad_top + fy, ix * g.stride_w - g.pad_left + fx
            if 0 <= oy < g.out_h and 0 <= ox < g.out_w:
                if is_float:
                    acc[b_, oy, ox, oc] = np.float32(acc[b_, oy, ox, oc] + x[b_, iy, ix, ic] * w[oc, fy, fx, ic])
                else:
                    acc[b_, oy, ox, oc] += (int(x[b_, iy, ix, ic]) - zp) * int(w[oc, fy, fx, ic])
        for idx in np.ndindex(*y.shape):
            oc = idx[3]
            if is_float:
                y[idx] = _finish_float(acc[idx], bias, oc, p, always_add_bias=False)
            else:
                y[idx] = _finish_int(acc[idx] + (int(bias[oc]) if bias is not None else 0), oc, p)
        return y

    for b_, oy, ox, oc in np.ndindex(*y.shape):
        taps = []
        for fy, fx in np.ndindex(g.k_h, g.k_w):
            iy = oy * g.stride_h - g.pad_top + fy * g.dil_h
            ix = ox * g.stride_w - g.pad_left + fx * g.dil_w
            if not (0 <= iy < g.in_h and 0 <= ix < g.in_w):
                continue  # TFLite Micro skips taps outside the image
            if node.op == "nn.depthwise_conv2d":
                taps.append((x[b_, iy, ix, oc // g.filter_c], w[0, fy, fx, oc]))
            else:
                group = oc // (g.out_c // (g.in_c // g.filter_c))
                taps += [(x[b_, iy, ix, group * g.filter_c + ic], w[oc, fy, fx, ic]) for ic in range(g.filter_c)]
        total = dot(taps)
        if is_float:
            y[b_, oy, ox, oc] = _finish_float(total, bias, oc, p, always_add_bias=True)
        else:
            y[b_, oy, ox, oc] = _finish_int(total + (int(bias[oc]) if bias is not None else 0), oc, p)
    return y


def check_case(graph: Graph, tmp_path, naive_limit: int = 40_000):
    samples = [random_inputs(graph, np.random.default_rng(seed)) for seed in (1, 2)]
    compiled = compiled_outputs(graph, samples, tmp_path)
    macs = get_op(graph.nodes[0].op).macs(graph, graph.nodes[0])
    w = graph.constant("w")
    for sample, ours in zip(samples, compiled):
        ref = reference_run(graph, [s.copy() for s in sample])[0]
        np.testing.assert_array_equal(ours, ref, err_msg="compiled C differs from the numpy reference")
        if macs <= naive_limit:
            weights = sample[1] if w is None else w
            np.testing.assert_array_equal(ref, naive(graph, sample[0], weights),
                                          err_msg="numpy reference differs from TFLite Micro's loops")
    if graph.type_of("y").dtype != DType.FLOAT32:  # a case that saturates everything proves little
        ref = reference_run(graph, samples[0])[0]
        assert len(np.unique(ref)) > min(8, ref.size // 2), "output is (nearly) constant: rescale the case"


I8, I16, F32 = DType.INT8, DType.INT16, DType.FLOAT32

CONV2D_CASES = {
    "int8 3x3 same-pad relu": (I8, (1, 7, 6, 3), (4, 3, 3, 3), dict(padding=(1, 1, 1, 1), activation="relu"), {}),
    "int8 3x3 stride 2 asymmetric pad": (I8, (1, 8, 9, 2), (5, 3, 3, 2), dict(strides=(2, 2), padding=(0, 0, 1, 1)),
                                         dict(in_zp=-9, out_zp=5)),
    "int8 dilation 2": (I8, (1, 9, 9, 2), (3, 3, 3, 2), dict(dilation=(2, 2), padding=(2, 2, 2, 2)), dict(in_zp=17)),
    "int8 dilation (1, 3) stride (2, 1)": (I8, (2, 7, 10, 3), (2, 2, 3, 3),
                                           dict(strides=(2, 1), dilation=(1, 3), padding=(1, 3, 0, 3)), {}),
    "int8 1x1 pointwise per-tensor": (I8, (1, 4, 5, 16), (8, 1, 1, 16), {}, dict(per_channel=False, in_zp=-128)),
    "int8 2 groups": (I8, (1, 6, 6, 4), (6, 3, 3, 2), dict(padding=(1, 1, 1, 1)), dict(in_zp=3)),
    "int8 depthwise-like groups": (I8, (1, 5, 5, 3), (3, 3, 3, 1), dict(padding=(1, 1, 1, 1)), {}),
    "int8 windows with no tap in the image": (I8, (1, 2, 2, 2), (3, 3, 3, 2), dict(padding=(4, 4, 4, 4)),
                                              dict(in_zp=50, out_zp=-3)),
    "int8 no bias relu6": (I8, (1, 6, 5, 3), (4, 2, 2, 3), dict(activation="relu6"), dict(bias=None, in_zp=7)),
    "int8 weights not constant": (I8, (1, 6, 6, 3), (4, 3, 3, 3), dict(padding=(1, 1, 1, 1)),
                                  dict(const_weight=False, in_zp=-20)),
    "int16 int64 bias": (I16, (1, 6, 7, 4), (5, 3, 3, 4), dict(padding=(1, 1, 1, 1), strides=(1, 2)), {}),
    "int16 int32 bias": (I16, (1, 5, 6, 3), (4, 2, 3, 3), dict(padding=(0, 1, 1, 1)), dict(bias=DType.INT32)),
    "int16 no bias dilation": (I16, (1, 8, 8, 2), (3, 3, 3, 2), dict(dilation=(2, 1), activation="relu"),
                               dict(bias=None)),
    "float 3x3 same": (F32, (1, 6, 6, 3), (4, 3, 3, 3), dict(padding=(1, 1, 1, 1)), {}),
    "float groups dilation no bias": (F32, (2, 7, 7, 4), (4, 3, 2, 2),
                                      dict(dilation=(2, 2), padding=(1, 0, 2, 3), activation="relu_n1_to_1"),
                                      dict(bias=None)),
    "float stride 3 relu6": (F32, (1, 10, 9, 2), (3, 4, 4, 2), dict(strides=(3, 3), padding=(1, 1, 2, 2),
                                                                    activation="relu6"), {}),
}


@pytest.mark.parametrize("case", CONV2D_CASES.values(), ids=CONV2D_CASES.keys())
def test_conv2d(case, tmp_path):
    dtype, x_shape, w_shape, attrs, options = case
    check_case(make_graph("nn.conv2d", x_shape, w_shape, dtype, attrs, **options), tmp_path)


DEPTHWISE_CASES = {
    "int8 3x3 same-pad": (I8, (1, 7, 7, 4), (1, 3, 3, 4), dict(padding=(1, 1, 1, 1)), dict(in_zp=-11, out_zp=2)),
    "int8 multiplier 3 stride 2": (I8, (1, 8, 7, 2), (1, 3, 3, 6), dict(depth_multiplier=3, strides=(2, 2),
                                                                      padding=(0, 0, 1, 1)), {}),
    "int8 dilation 2 per-tensor relu": (I8, (1, 9, 8, 3), (1, 3, 2, 3), dict(dilation=(2, 3), padding=(2, 3, 2, 3),
                                                                          activation="relu"), dict(per_channel=False)),
    "int8 windows with no tap in the image": (I8, (1, 2, 3, 2), (1, 3, 3, 4),
                                              dict(depth_multiplier=2, padding=(4, 3, 4, 3)), dict(in_zp=9)),
    "int8 no bias weights not constant": (I8, (2, 5, 5, 3), (1, 2, 2, 3), dict(padding=(1, 1, 0, 0)),
                                          dict(bias=None, const_weight=False, in_zp=100)),
    "int16 int64 bias multiplier 2": (I16, (1, 6, 6, 3), (1, 3, 3, 6),
                                      dict(depth_multiplier=2, padding=(1, 1, 1, 1)), {}),
    "int16 no bias stride (1, 2)": (I16, (1, 7, 9, 4), (1, 3, 3, 4), dict(strides=(1, 2)), dict(bias=None)),
    "float multiplier 2 dilation": (F32, (1, 8, 8, 3), (1, 3, 3, 6), dict(depth_multiplier=2, dilation=(2, 2),
                                                                        padding=(2, 2, 2, 2)), {}),
    "float no bias relu6": (F32, (2, 5, 6, 2), (1, 2, 3, 2), dict(activation="relu6", strides=(2, 1)), dict(bias=None)),
}


@pytest.mark.parametrize("case", DEPTHWISE_CASES.values(), ids=DEPTHWISE_CASES.keys())
def test_depthwise_conv2d(case, tmp_path):
    dtype, x_shape, w_shape, attrs, options = case
    check_case(make_graph("nn.depthwise_conv2d", x_shape, w_shape, dtype, attrs, **options), tmp_path)


TRANSPOSE_CASES = {
    "int8 3x3 stride 2": (I8, (1, 4, 4, 3), (4, 3, 3, 3), dict(strides=(2, 2), padding=(0, 0, 1, 1),
                                                              output_shape=(1, 8, 8, 4)), dict(in_zp=-6, out_zp=3)),
    "int8 stride larger than kernel (gaps)": (I8, (1, 3, 4, 2), (3, 2, 2, 2), dict(strides=(3, 3),
                                                                                 output_shape=(1, 9, 12, 3)), {}),
    "int8 output beyond every tap": (I8, (1, 2, 3, 2), (2, 3, 3, 2), dict(strides=(2, 1), padding=(2, 1, 0, 0),
                                                                         output_shape=(1, 6, 6, 2)), dict(in_zp=40)),
    "int8 stride 1 relu no bias": (I8, (2, 5, 5, 3), (3, 3, 3, 3), dict(padding=(1, 1, 1, 1), activation="relu",
                                                                       output_shape=(2, 5, 5, 3)), dict(bias=None)),
    "int8 per-tensor weights not constant": (I8, (1, 3, 3, 4), (2, 4, 4, 4), dict(strides=(2, 2), padding=(1, 1, 1, 1),
                                             output_shape=(1, 6, 6, 2)), dict(per_channel=False, const_weight=False)),
    "int16 int64 bias": (I16, (1, 3, 5, 3), (4, 3, 4, 3), dict(strides=(1, 2), padding=(1, 1, 1, 1),
                                                              output_shape=(1, 3, 10, 4)), {}),
    "int16 int16 bias": (I16, (1, 4, 4, 2), (3, 3, 3, 2), dict(strides=(2, 2), padding=(0, 0, 1, 1),
                                                              output_shape=(1, 8, 8, 3)), dict(bias=DType.INT16)),
    "float 4x4 stride 2": (F32, (1, 3, 3, 3), (2, 4, 4, 3), dict(strides=(2, 2), padding=(1, 1, 1, 1),
                                                                output_shape=(1, 6, 6, 2)), {}),
    "float no bias relu6": (F32, (1, 4, 3, 2), (3, 3, 2, 2), dict(strides=(2, 3), activation="relu6",
                                                                 output_shape=(1, 9, 8, 3)), dict(bias=None)),
}


@pytest.mark.parametrize("case", TRANSPOSE_CASES.values(), ids=TRANSPOSE_CASES.keys())
def test_conv2d_transpose(case, tmp_path):
    dtype, x_shape, w_shape, attrs, options = case
    check_case(make_graph("nn.conv2d_transpose", x_shape, w_shape, dtype, attrs, **options), tmp_path)


def test_text_form_round_trip_compiles(tmp_path):
    """A conv graph printed to text and parsed back is the same graph and compiles to the same outputs."""
    graph = make_graph("nn.conv2d", (1, 5, 5, 2), (3, 3, 3, 2), I8, dict(strides=(2, 2), padding=(1, 1, 1, 1)),
                       in_zp=4)
    parsed = verify(parse_graph(print_graph(graph)))
    assert print_graph(parsed) == print_graph(graph)
    check_case(parsed, tmp_path)


def test_macs_and_scratch():
    conv = make_graph("nn.conv2d", (1, 8, 8, 4), (6, 3, 3, 2), I8, dict(padding=(1, 1, 1, 1)))
    assert get_op("nn.conv2d").macs(conv, conv.nodes[0]) == 8 * 8 * 6 * 3 * 3 * 2
    dw = make_graph("nn.depthwise_conv2d", (1, 8, 8, 4), (1, 3, 3, 8), I8, dict(depth_multiplier=2, strides=(2, 2)))
    assert get_op("nn.depthwise_conv2d").macs(dw, dw.nodes[0]) == 3 * 3 * 8 * 3 * 3
    op = get_op("nn.conv2d_transpose")
    for dtype, per_value in ((I8, 4), (I16, 8), (F32, 0)):
        tc = make_graph("nn.conv2d_transpose", (1, 3, 3, 2), (4, 3, 3, 2), dtype,
                        dict(strides=(2, 2), output_shape=(1, 6, 6, 4)))
        node = tc.nodes[0]
        assert op.macs(tc, node) == 3 * 3 * 2 * 3 * 3 * 4
        assert lower(tc).nodes[0].plan.scratch_bytes == 6 * 6 * 4 * per_value  # the portable kernel's


def _retyped(graph: Graph, name: str, **changes) -> Graph:
    """The graph with tensor `name` given a new dtype, quantization or data."""
    t = graph.tensors[name]
    ttype = TensorType(t.type.shape, changes.get("dtype", t.type.dtype), changes.get("quant", t.type.quant))
    data = changes.get("data", t.data)
    return Graph({**graph.tensors, name: Tensor(name, ttype, data)}, graph.nodes, graph.inputs, graph.outputs)


UNSUPPORTED = {
    "int16 conv with an int8 bias": (("nn.conv2d", I16),
                                     lambda g: _retyped(g, "b", dtype=I8, data=np.zeros(4, np.int8)),
                                     "int32 or int64 bias"),
    "int8 conv with an int64 bias": (("nn.conv2d", I8), lambda g: _retyped(g, "b", dtype=DType.INT64,
                                                                          data=np.zeros(4, np.int64)), "int32 bias"),
    "int16 depthwise with an int32 bias": (("nn.depthwise_conv2d", I16),
                                           lambda g: _retyped(g, "b", dtype=DType.INT32, data=np.zeros(4, np.int32)),
                                           "int64 bias"),
    "int16 transpose conv with an int32 bias": (("nn.conv2d_transpose", I16),
                                                lambda g: _retyped(g, "b", dtype=DType.INT32,
                                                                   data=np.zeros(4, np.int32)), "int64 or int16"),
    "nonzero weight zero point": (("nn.conv2d", I8), lambda g: _retyped(g, "w", quant=Quant.tensor(0.01, 3)),
                                  "zero points must be 0"),
    "nonzero int16 zero point": (("nn.conv2d", I16), lambda g: _retyped(g, "x", quant=Quant.tensor(0.05, 1)),
                                 "zero points must be 0"),
    "scales on the wrong axis": (("nn.conv2d", I8), lambda g: _retyped(g, "w", quant=Quant((0.1,) * 3, (0,) * 3, 3)),
                                 "one per output channel"),
    "int8 weights for float data": (("nn.conv2d", F32), lambda g: _retyped(g, "w", dtype=I8), "float32 weight"),
}


def _small_graph(op: str, dtype: DType) -> Graph:
    if op == "nn.depthwise_conv2d":
        return make_graph(op, (1, 4, 4, 4), (1, 3, 3, 4), dtype, {})
    if op == "nn.conv2d_transpose":
        return make_graph(op, (1, 3, 3, 3), (4, 3, 3, 3), dtype, dict(strides=(2, 2), output_shape=(1, 6, 6, 4)))
    return make_graph(op, (1, 4, 4, 3), (4, 3, 3, 3), dtype, {})


@pytest.mark.parametrize("case", UNSUPPORTED.values(), ids=UNSUPPORTED.keys())
def test_unsupported_combinations_fail_clearly(case):
    (op, dtype), change, message = case
    graph = change(_small_graph(op, dtype))
    with pytest.raises(CompileError, match=message) as error:
        get_op(op).prepare(graph, graph.nodes[0])
    assert op in str(error.value)  # the error names the node


@pytest.mark.parametrize("op, x_shape, w_shape, attrs, message", [
    ("nn.conv2d", (1, 4, 4, 5), (4, 3, 3, 2), {}, "groups"),
    ("nn.depthwise_conv2d", (1, 4, 4, 3), (1, 3, 3, 4), {}, "depth_multiplier"),
    ("nn.conv2d", (1, 2, 2, 2), (4, 3, 3, 2), {}, "does not fit"),
    ("nn.conv2d", (1, 4, 4, 2), (4, 3, 3, 2), dict(strides=(0, 1)), "strides"),
])
def test_bad_shapes_fail_clearly(op, x_shape, w_shape, attrs, message):
    with pytest.raises(CompileError, match=message):
        make_graph(op, x_shape, w_shape, I8, attrs)
