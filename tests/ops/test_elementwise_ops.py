"""add, subtract, multiply, nn.leaky_relu, nn.relu, nn.relu6, qnn.quantize, qnn.dequantize, sigmoid, tanh and
nn.softmax: compiled C against the numpy reference, and both against oracles the code under test did not make.

- Many seeded cases per (op, dtype) as IR graphs, one graph and one C build per group: every shape pair a
  broadcast can take (same shape, scalars, both-ways, 5-D and 6-D), activations and quantization parameters.
  Binary integer ops are also held against a plain-integer oracle written from TFLM_ARITHMETIC.md section 3.
- The int8 gemmlowp functions (exp through softmax, logistic, tanh): all 256 int8 inputs for several input
  scales and zero points, compiled C vs reference, and vs TFLite Micro when the .tflite writer is present.
- crt gemmlowp.h vs arith/gemmlowp.py on raw fixed-point values, both near the real functions.
- What TFLite Micro's Prepare rejects raises CompileError; softmax on micro_speech/kws matches TFLite Micro.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT, shared_model
from micro_relay.arith import gemmlowp
from micro_relay.compiler import compile_graph, write_output
from micro_relay.errors import CompileError
from micro_relay.ir.graph import Graph, Node, Tensor
from micro_relay.ir.registry import get_op
from micro_relay.ir.types import DType, Quant, TensorType
from micro_relay.ir.verify import verify
from micro_relay.reference import run as reference_run
from support.c_harness import STRICT_FLAGS, build_host_program, run_host_program

get_op("add")  # the registry loads every op only while it is empty: load it before importing op modules
from micro_relay.ops._elementwise import broadcast_layout  # noqa: E402

CRT = ROOT / "crt"
Q = {"int8": Quant.tensor(0.05, -7), "int16": Quant.tensor(0.002, 0), "float32": None}
ACTS = ("none", "relu", "relu6", "relu_n1_to_1")


# -- running many independent cases as one graph -------------------------------------------------------

class Cases:
    """One graph of independent single-node cases; case i reads in{i}_k and writes out{i}."""

    def __init__(self):
        self.tensors, self.nodes, self.inputs, self.outputs = {}, [], [], []

    def add(self, op: str, in_types, out_type: TensorType, constants=None, **attrs):
        i = len(self.nodes)
        names = []
        for k, t in enumerate(in_types):
            name, data = f"in{i}_{k}", (constants or {}).get(k)
            self.tensors[name] = Tensor(name, t, data)
            names.append(name)
            if data is None:
                self.inputs.append(name)
        self.tensors[f"out{i}"] = Tensor(f"out{i}", out_type)
        self.nodes.append(Node(op, tuple(names), (f"out{i}",), attrs))
        self.outputs.append(f"out{i}")

    def graph(self) -> Graph:
        return verify(Graph(self.tensors, tuple(self.nodes), tuple(self.inputs), tuple(self.outputs)))


def random_value(t: TensorType, rng, float_scale=4.0) -> np.ndarray:
    if t.dtype.is_float:
        return (rng.standard_normal(t.shape) * float_scale).astype(np.float32)
    return rng.integers(t.dtype.min, t.dtype.max + 1, t.shape, dtype=np.int64).astype(t.dtype.numpy)


def run_cases(graph: Graph, tmp_path: Path, samples) -> list[tuple[list, list]]:
    """[(compiled outputs, reference outputs)] per sample (a dict of input arrays by name)."""
    model = compile_graph(graph, "ew", "test_elementwise_ops")
    write_output(model, tmp_path)
    exe = build_host_program(tmp_path, "ew")
    out_types = [(graph.type_of(n).dtype.numpy, graph.type_of(n).shape) for n in graph.outputs]
    compiled = run_host_program(exe, [[s[n] for n in graph.inputs] for s in samples], out_types)
    return [(c, reference_run(graph, [s[n].copy() for n in graph.inputs])) for s, c in zip(samples, compiled)]


def assert_same(got, want, msg, float_rtol=1e-5):
    if got.dtype.kind == "f":
        scale = max(float(np.nanmax(np.abs(want))) if want.size else 0.0, 1e-30)
        np.testing.assert_allclose(got, want, rtol=float_rtol, atol=float_rtol * scale, err_msg=msg)
    else:
        np.testing.assert_array_equal(got, want, err_msg=msg)


def check_cases(cases: Cases, tmp_path, seeds=(0, 1), samples=None, oracle=None, float_scale=4.0):
    """Compiled C == reference for every case and sample; and == oracle(graph, node, inputs) where that
    returns an array (None: no independent oracle for this case)."""
    graph = cases.graph()
    if samples is None:
        samples = [{n: random_value(graph.type_of(n), np.random.default_rng(s), float_scale) for n in graph.inputs}
                   for s in seeds]
    for sample, (compiled, reference) in zip(samples, run_cases(graph, tmp_path, samples)):
        for i, node in enumerate(graph.nodes):
            msg = f"case {i}: {node.op} {dict(node.attrs)} {[graph.type_of(n) for n in node.inputs]}"
            assert_same(compiled[i], reference[i], "compiled C vs reference, " + msg)
            want = None
            if oracle is not None:
                want = oracle(graph, node, [sample.get(n, graph.tensors[n].data) for n in node.inputs])
            if want is not None:
                assert_same(reference[i], want, "reference vs oracle, " + msg)


# -- broadcasting ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("a, b, rank, dims, a_strides, b_strides", [
    ((1, 4, 4, 3), (1, 4, 4, 3), 0, [], [], []),
    ((1, 2, 12, 64), (64,), 2, [24, 64], [64, 1], [0, 1]),
    ((2, 1, 5), (3, 1), 3, [2, 3, 5], [5, 0, 1], [0, 1, 0]),
    ((4, 6), (1,), 1, [24], [1], [0]),
    ((1,), (2, 3, 1), 1, [6], [0], [1]),
    ((2, 3, 4, 5, 6), (3, 1, 1, 6), 3, [2, 3, 20, 6], [360, 120, 6, 1], [0, 6, 0, 1]),
], ids=["same", "channel-vector", "both-ways", "scalar-b", "scalar-a", "5-D"])
def test_broadcast_layout_merges_axes_that_broadcast_alike(a, b, rank, dims, a_strides, b_strides):
    out = tuple(np.broadcast_shapes(a, b))
    layout = broadcast_layout(a, b, out)
    if rank == 0:
        assert layout["rank"] == 0
        return
    # 5-D: axes (2, 3, 4, 5, 6) vs (1, 3, 1, 1, 6) merge 4x5 (b broadcast on both) into 20.
    assert (layout["dims"], layout["a_strides"], layout["b_strides"]) == (dims, a_strides, b_strides)
    assert layout["rank"] == len(dims)


SHAPE_PAIRS = [((2, 3, 4), (2, 3, 4)), ((2, 3, 4), (4,)), ((2, 3, 4), (3, 1)), ((1,), (5, 2)), ((3, 1, 2), (1, 4, 1)),
               ((7,), (1,)), ((1, 1), (1, 1)), ((2, 1, 4, 1, 2), (3, 4, 1, 1)), ((1, 2, 1, 3, 1, 2), (2, 1, 3, 2, 1)),
               ((1, 2, 12, 64), (64,)), ((5, 1), (5, 9))]


def _sheet_binary(op: str, a, b, p: dict, act_min: int, act_max: int) -> np.ndarray:
    """ADD/SUB/MUL on Python ints, written from TFLM_ARITHMETIC.md section 3 (not from the op code)."""
    def srdhm(x, m):
        return (x * m + (1 << 30)) >> 31

    def rdbpot(x, e):
        mask = (1 << e) - 1
        return (x >> e) + ((x & mask) > (mask >> 1) + (x < 0))

    def mbqm(x, m, s):
        return rdbpot(srdhm(x << max(s, 0), m), max(-s, 0))

    out = []
    for x, y in zip(np.ravel(a).tolist(), np.ravel(b).tolist()):
        if op == "multiply":
            v = mbqm((x + p["a_offset"]) * (y + p["b_offset"]), p["mult"], p["shift"])
        else:
            xa = mbqm((x + p["a_offset"]) << p["left_shift"], p["a_mult"], p["a_shift"])
            yb = mbqm((y + p["b_offset"]) << p["left_shift"], p["b_mult"], p["b_shift"])
            v = mbqm(xa + yb if op == "add" else xa - yb, p["out_mult"], p["out_shift"])
        out.append(min(max(v + p["out_offset"], act_min), act_max))
    return np.array(out).reshape(np.broadcast(a, b).shape)


FLOAT_FN = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply}


@pytest.mark.parametrize("dtype", ["int8", "int16", "float32"])
@pytest.mark.parametrize("op", ["add", "subtract", "multiply"])
def test_binary_ops_many_shapes_and_quantizations(tmp_path, op, dtype):
    rng = np.random.default_rng(hash((op, dtype)) % 2 ** 32)
    cases = Cases()
    for k, (sa, sb) in enumerate(SHAPE_PAIRS * 2):
        out_shape = tuple(np.broadcast_shapes(sa, sb))
        if dtype == "float32":
            qa = qb = qo = None
        else:
            zp = (lambda: int(rng.integers(-60, 60))) if dtype == "int8" else (lambda: 0)
            qa, qb = Quant.tensor(rng.uniform(0.01, 0.2), zp()), Quant.tensor(rng.uniform(0.01, 0.2), zp())
            unit = qa.scale * qb.scale * (rng.uniform(20, 200) if dtype == "int8" else rng.uniform(1e3, 3e4))
            qo = Quant.tensor(unit if op == "multiply" else max(qa.scale, qb.scale) * rng.uniform(0.5, 3), zp())
        types_ = [TensorType(sa, DType(dtype), qa), TensorType(sb, DType(dtype), qb)]
        constants = {1: random_value(types_[1], rng)} if k % 5 == 4 else None
        cases.add(op, types_, TensorType(out_shape, DType(dtype), qo), constants, activation=ACTS[k % 4])

    def oracle(graph, node, args):
        p = get_op(op).prepare(graph, node)  # multipliers and clamps only; the arithmetic is below
        if dtype == "float32":
            return np.clip(FLOAT_FN[op](*args), np.float32(p["act_min"]), np.float32(p["act_max"]))
        a, b = np.broadcast_arrays(*args)
        return _sheet_binary(op, a, b, p, p["act_min"], p["act_max"]).astype(args[0].dtype)

    check_cases(cases, tmp_path, oracle=oracle)


# -- unary ops -------------------------------------------------------------------------------------------

def _unary(cases, op, dtype, out_dtype, qi, qo, shape=(3, 17), **attrs):
    cases.add(op, [TensorType(shape, DType(dtype), qi)], TensorType(shape, DType(out_dtype), qo), **attrs)


@pytest.mark.parametrize("dtype", ["int8", "int16", "float32"])
def test_activations_many_quantizations(tmp_path, dtype):
    rng = np.random.default_rng(7)
    cases = Cases()
    for k in range(12):
        shape = tuple(int(d) for d in rng.integers(1, 6, int(rng.integers(1, 5))))
        if dtype == "float32":
            qi = qo = None
        else:
            zp = (lambda: int(rng.integers(-100, 100))) if dtype == "int8" else (lambda: 0)
            qi = Quant.tensor(rng.uniform(0.005, 0.3), zp())
            qo = Quant.tensor(qi.scale * rng.uniform(0.3, 3), zp())
        alpha = [0.2, 0.01, 1.7, -0.3, 0.5, 3.0][k % 6]
        _unary(cases, "nn.leaky_relu", dtype, dtype, qi, qo, shape, alpha=alpha)
        _unary(cases, "nn.relu", dtype, dtype, qi, qo, shape)
        _unary(cases, "nn.relu6", dtype, dtype, qi, qi, shape)
    check_cases(cases, tmp_path, float_scale=8.0)


def test_quantize_and_dequantize_every_type_pair(tmp_path):
    cases = Cases()
    pairs = [("float32", "int8"), ("float32", "int16"), ("int8", "int8"), ("int8", "uint8"), ("int8", "int16"),
             ("int8", "int32"), ("int16", "int8"), ("int16", "int16"), ("int16", "int32"), ("int32", "int8"),
             ("int32", "int16"), ("uint8", "int8")]
    quants = {"int8": [(0.05, 3), (0.013, -128)], "uint8": [(0.05, 131), (0.02, 0)], "int16": [(0.002, 0), (3e-4, 0)],
              "int32": [(1e-5, 0), (2.5e-4, 7)], "float32": [None, None]}
    for src, dst in pairs:
        for k in range(2):
            qi = quants[src][k] and Quant.tensor(*quants[src][k])
            qo = Quant.tensor(*quants[dst][1 - k])
            _unary(cases, "qnn.quantize", src, dst, qi, qo)
    # int8 <-> uint8 with equal scales and zero points 128 apart: TFLite Micro's XOR 0x80 path.
    _unary(cases, "qnn.quantize", "int8", "uint8", Quant.tensor(0.05, -3), Quant.tensor(0.05, 125))
    _unary(cases, "qnn.quantize", "uint8", "int8", Quant.tensor(0.05, 125), Quant.tensor(0.05, -3))
    for src in ("int8", "uint8", "int16"):
        _unary(cases, "qnn.dequantize", src, "float32", Quant.tensor(*quants[src][0]), None)

    xor_cases = {cases.nodes[-5].outputs[0], cases.nodes[-4].outputs[0]}

    def oracle(graph, node, args):
        if node.outputs[0] not in xor_cases:
            return None
        return (args[0].view(np.uint8) ^ 0x80).view(graph.type_of(node.outputs[0]).dtype.numpy)

    check_cases(cases, tmp_path, float_scale=300.0, oracle=oracle)


def test_float_quantize_rounds_halves_away_from_zero_and_saturates(tmp_path):
    cases = Cases()
    _unary(cases, "qnn.quantize", "float32", "int8", None, Quant.tensor(0.5, 1), shape=(1, 12))
    x = np.array([[0.25, -0.25, 0.75, -0.75, 1.25, -1.25, 63.25, -64.75, 1e9, -1e9, np.inf, np.nan]], np.float32)
    want = np.array([[2, 0, 3, -1, 4, -2, 127, -128, 127, -128, 127, -128]], np.int8)
    for compiled, reference in run_cases(cases.graph(), tmp_path, [{"in0_0": x}]):
        np.testing.assert_array_equal(compiled[0], want)
        np.testing.assert_array_equal(reference[0], want)


def test_softmax_all_kinds_depths_and_betas(tmp_path):
    rng = np.random.default_rng(5)
    cases = Cases()
    for k, depth in enumerate([1, 2, 5, 12, 33, 100]):
        shape = (int(rng.integers(1, 4)), depth)
        beta = [1.0, 0.5, 2.0][k % 3]
        qi = Quant.tensor(rng.uniform(0.02, 0.5), int(rng.integers(-50, 50)))
        _unary(cases, "nn.softmax", "int8", "int8", qi, Quant.tensor(1 / 256, -128), shape, beta=beta)
        _unary(cases, "nn.softmax", "int8", "int16", qi, Quant.tensor(1 / 65536, -32768), shape, beta=beta)
        _unary(cases, "nn.softmax", "int16", "int16", Quant.tensor(rng.uniform(1e-4, 1e-3), 0),
               Quant.tensor(1 / 32768, 0), shape, beta=beta)
        _unary(cases, "nn.softmax", "float32", "float32", None, None, shape, beta=beta)
    check_cases(cases, tmp_path, seeds=(0, 1, 2))


def test_int8_softmax_with_many_tied_maxima_caps_its_shift(tmp_path):
    """1024 equal inputs: the sum reaches 2^29 and TFLite Micro's output shift would be 33 (it aborts there);
    both implementations cap it at 31, identically."""
    cases = Cases()
    _unary(cases, "nn.softmax", "int8", "int8", Quant.tensor(0.1, 0), Quant.tensor(1 / 256, -128), (2, 1024))
    x = np.stack([np.zeros(1024, np.int8), np.r_[np.full(600, 5), np.zeros(424)].astype(np.int8)])
    check_cases(cases, tmp_path, samples=[{"in0_0": x}])


# -- the int8 gemmlowp functions, exhaustively -----------------------------------------------------------

EXHAUSTIVE_QUANT = [(0.002, 0), (0.02, 5), (1 / 16, 0), (0.1, -30), (0.25, 100), (1.0, -128)]
ALL_INT8 = np.arange(-128, 128, dtype=np.int8)


def _exhaustive_cases():
    """sigmoid and tanh on all 256 values; softmax on rows holding all 256 values (every exp argument
    from 0 down to -255 steps) and on pairs (x, c) for every x and three c."""
    cases, samples = Cases(), {}
    for k, (scale, zp) in enumerate(EXHAUSTIVE_QUANT):
        q = Quant.tensor(scale, zp)
        for op, qo in (("sigmoid", Quant.tensor(1 / 256, -128)), ("tanh", Quant.tensor(1 / 128, 0))):
            samples[f"in{len(cases.nodes)}_0"] = ALL_INT8.reshape(1, 256)
            _unary(cases, op, "int8", "int8", q, qo, (1, 256))
        if scale * 2 ** 26 > 1:
            samples[f"in{len(cases.nodes)}_0"] = np.stack([np.roll(ALL_INT8, r) for r in range(3)])
            _unary(cases, "nn.softmax", "int8", "int8", q, Quant.tensor(1 / 256, -128), (3, 256))
            pairs = [np.stack([ALL_INT8, np.full(256, c, np.int8)], 1) for c in (-128, 0, 127)]
            samples[f"in{len(cases.nodes)}_0"] = np.concatenate(pairs)
            _unary(cases, "nn.softmax", "int8", "int8", q, Quant.tensor(1 / 256, -128), (768, 2), beta=1.0 + k / 4)
    return cases, samples


def test_int8_gemmlowp_ops_exhaustive_compiled_vs_reference(tmp_path):
    cases, samples = _exhaustive_cases()
    check_cases(cases, tmp_path, samples=[samples])


def test_int8_gemmlowp_ops_exhaustive_vs_tflite_micro():
    tflite_models = pytest.importorskip("support.tflite_models")
    from support.model_check import assert_matches, compare_with_tflm
    for scale, zp in EXHAUSTIVE_QUANT:
        for op, qo in (("LOGISTIC", (1 / 256, -128)), ("TANH", (1 / 128, 0)), ("SOFTMAX", (1 / 256, -128))):
            x = ALL_INT8.reshape(1, 256) if op != "SOFTMAX" else np.stack([np.roll(ALL_INT8, r) for r in range(3)])
            if op == "SOFTMAX" and scale * 2 ** 26 <= 1:
                continue
            options = {"beta": 1.0} if op == "SOFTMAX" else {}
            model = tflite_models.unary_model(op, "int8", x.shape, (scale, zp), qo, **options)
            assert_matches(compare_with_tflm(model, samples=[[x]]))


def test_gemmlowp_header_matches_numpy_and_the_real_functions(tmp_path):
    harness = tmp_path / "gl.c"
    harness.write_text("""
#include <stdio.h>
#include "micro_relay/gemmlowp.h"
int main(void) {
    long v; int bits, nb;
    while (scanf("%ld %d", &v, &bits) == 2) {
        const int32_t x = (int32_t)v;
        const int32_t r = x > 0 ? mr_gl_reciprocal(x, 12, &nb) : 0;
        printf("%ld %ld %ld %ld %d\\n", (long)(x <= 0 ? mr_gl_exp_on_negative_values(x, bits) : 0),
               (long)mr_gl_logistic(x, bits), (long)mr_gl_tanh(x, bits), (long)r, x > 0 ? nb : 0);
    }
    return 0;
}
""")
    exe = tmp_path / "gl"
    subprocess.run(["gcc", *STRICT_FLAGS, "-O2", "-I", str(CRT / "include"), str(harness), "-o", str(exe)], check=True)
    rng = np.random.default_rng(3)
    edges = np.array([0, 1, -1, 2 ** 31 - 1, -2 ** 31 + 1, -2 ** 31, 1 << 24, -(1 << 24), 1 << 26, -(1 << 27)])
    xs = np.concatenate([rng.integers(-2 ** 31, 2 ** 31, 3000), rng.integers(-2 ** 28, 2 ** 28, 3000), edges])
    for bits in (4, 5):
        text = "".join(f"{int(x)} {bits}\n" for x in xs)
        lines = subprocess.run([str(exe)], input=text, capture_output=True, text=True, check=True).stdout.splitlines()
        got = np.array([[int(v) for v in line.split()] for line in lines])
        neg = np.minimum(xs, 0)
        recip, over = gemmlowp.reciprocal(np.maximum(xs, 1), 12)
        want = np.stack([np.where(xs <= 0, gemmlowp.exp_on_negative_values(neg, bits), 0), gemmlowp.logistic(xs, bits),
                         gemmlowp.tanh(xs, bits), np.where(xs > 0, recip, 0), np.where(xs > 0, over, 0)], 1)
        np.testing.assert_array_equal(got, want)
        real = xs / 2.0 ** (31 - bits)
        inside = (xs > -2 ** 31) & (np.abs(real) < 2 ** bits)
        assert np.abs(got[:, 1][inside] / 2 ** 31 - 1 / (1 + np.exp(-real[inside]))).max() < 1e-6
        assert np.abs(got[:, 2][inside] / 2 ** 31 - np.tanh(real[inside])).max() < 1e-6
        assert np.abs(got[:, 0][xs <= 0] / 2 ** 31 - np.exp(real[xs <= 0])).max() < 1e-6


# -- what TFLite Micro rejects ---------------------------------------------------------------------------

@pytest.mark.parametrize("op, dtype, out_dtype, qi, qo, attrs, message", [
    ("nn.softmax", "int8", "int8", (0.1, 0), (1 / 256, 0), {}, "zero point -128"),
    ("nn.softmax", "int8", "int8", (0.1, 0), (1 / 255, -128), {}, "scale 1/256"),
    ("nn.softmax", "int8", "int16", (0.1, 0), (1 / 60000, -32768), {}, "scale 1/65536"),
    ("nn.softmax", "int8", "int8", (1e-9, 0), (1 / 256, -128), {}, "too small"),
    ("nn.softmax", "int16", "int8", (0.001, 0), (1 / 256, -128), {}, "not supported"),
    ("sigmoid", "int8", "int8", (0.1, 0), (1 / 256, 0), {}, "zero point -128"),
    ("sigmoid", "int16", "int16", (2 ** -12, 1), (2 ** -15, 0), {}, "zero points of 0"),
    ("tanh", "int16", "int16", (2 ** -12, 0), (2 ** -14, 0), {}, "output scale 2^-15"),
    ("nn.relu", "int16", "int16", (0.01, 2), (0.01, 0), {}, "zero points of 0"),
    ("qnn.quantize", "int16", "uint8", (0.01, 0), (0.01, 0), {}, "not supported"),
    ("qnn.dequantize", "int32", "float32", (0.01, 0), None, {}, "not supported"),
])
def test_prepare_rejects_what_tflite_micro_rejects(op, dtype, out_dtype, qi, qo, attrs, message):
    cases = Cases()
    _unary(cases, op, dtype, out_dtype, qi and Quant.tensor(*qi), qo and Quant.tensor(*qo), **attrs)
    graph = cases.graph()
    with pytest.raises(CompileError, match=re.escape(message)):
        get_op(op).prepare(graph, graph.nodes[0])


@pytest.mark.parametrize("op, qa, qb, qo, message", [
    ("multiply", (0.1, 0), (0.1, 2), (0.1, 0), "zero points of 0"),
    ("add", (0.1, 0), (0.1, 0), (1e-8, 0), "output rescale below 1"),
])
def test_binary_prepare_rejects_int16_cases(op, qa, qb, qo, message):
    cases = Cases()
    t = lambda q: TensorType((2, 3), DType.INT16, Quant.tensor(*q))  # noqa: E731
    cases.add(op, [t(qa), t(qb)], t(qo), activation="none")
    graph = cases.graph()
    with pytest.raises(CompileError, match=re.escape(message)):
        get_op(op).prepare(graph, graph.nodes[0])


def test_shapes_that_do_not_broadcast_are_rejected():
    cases = Cases()
    t = lambda s: TensorType(s, DType.FLOAT32)  # noqa: E731
    cases.add("add", [t((2, 3)), t((4,))], t((2, 3)), activation="none")
    with pytest.raises(CompileError, match="do not broadcast"):
        cases.graph()


# -- whole models ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("relative", ["tflite_micro/micro_speech_quantized.tflite",
                                      "mlcommons_tiny/kws_ref_model.tflite"])
def test_softmax_models_match_tflite_micro(relative):
    from support.model_check import assert_matches, compare_with_tflm
    path = shared_model(relative)
    try:
        result = compare_with_tflm(path.read_bytes(), seeds=(0, 1, 2, 3))
    except CompileError as error:
        if "unknown op" in str(error) or "unsupported operator" in str(error):
            pytest.skip(f"an op of {relative} is not implemented yet: {error}")
        raise
    assert_matches(result)
