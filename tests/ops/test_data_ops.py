"""reshape, nn.pad, strided_slice, concatenate, mean, nn.avg_pool2d and nn.max_pool2d.

Three kinds of evidence, none of it produced by the code under test:
- many seeded random shapes per op and dtype, written as IR graphs (one graph holds every case of an
  (op, dtype) pair, so one C build covers them), run as compiled C and by the reference interpreter, both
  compared with small independent oracles below (numpy slicing and padding, plain-integer arithmetic from
  TFLM_ARITHMETIC.md);
- single-op .tflite models (hypothesis-drawn and named) where TFLite Micro itself is the oracle;
- the models TFLite Micro rejects in Prepare are rejected here too, with a CompileError.
"""

from __future__ import annotations

import math
import shutil
import subprocess

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from micro_relay.compiler import CRT_DIR, compile_graph, write_output
from micro_relay.errors import CompileError
from micro_relay.frontend.tflite.writer import TFLiteBuilder
from micro_relay.ir.graph import Graph, Node, Tensor
from micro_relay.ir.registry import get_op
from micro_relay.ir.text import parse_graph
from micro_relay.ir.types import DType, Quant, TensorType
from micro_relay.reference import run as reference_run
from support.c_harness import build_host_program, run_host_program
from support.tflite_models import (ACTIVATIONS, PADDINGS, check, concat_model, log_uniform, mean_model, pad_model,
                                   pool_model, reshape_model, strided_slice_model, strided_slice_shape, zero_points)
from support.tflm_oracle import tflm_run

Q8 = Quant.tensor(0.05, -7)
Q16 = Quant.tensor(0.002, 0)
QUANT = {"int8": Q8, "int16": Q16, "float32": None, "int32": None}


# -- IR graphs: many independent cases in one graph, compiled once ----------------------------------------

class Cases:
    """Builds one graph of independent single-op cases: case i reads in{i}_* and writes out{i}."""

    def __init__(self):
        self.tensors: dict[str, Tensor] = {}
        self.nodes: list[Node] = []
        self.inputs: list[str] = []
        self.outputs: list[str] = []

    def add(self, op: str, in_types, out_dtype: str, out_quant=None, constants=None, **attrs) -> int:
        i = len(self.outputs)
        names = []
        for k, t in enumerate(in_types):
            name = f"in{i}_{k}"
            data = (constants or {}).get(k)
            self.tensors[name] = Tensor(name, t, data)
            if data is None:
                self.inputs.append(name)
            names.append(name)
        out = f"out{i}"
        node = Node(op, tuple(names), (out,), attrs)
        self.tensors[out] = Tensor(out, TensorType((1,), DType(out_dtype), out_quant))  # shape inferred next
        probe = Graph(self.tensors, (node,), (), (out,))
        self.tensors[out] = Tensor(out, get_op(op).infer(probe, node)[0])
        self.nodes.append(node)
        self.outputs.append(out)
        return i

    def graph(self) -> Graph:
        return Graph(self.tensors, tuple(self.nodes), tuple(self.inputs), tuple(self.outputs))


def random_value(t: TensorType, rng) -> np.ndarray:
    if t.dtype.is_float:
        return rng.standard_normal(t.shape).astype(np.float32)
    return rng.integers(t.dtype.min, t.dtype.max + 1, t.shape, dtype=np.int64).astype(t.dtype.numpy)


def run_graph(graph: Graph, tmp_path, seeds=(0, 1)):
    """[(inputs by name, compiled outputs, reference outputs)] per seed."""
    model = compile_graph(graph, "ops", "test_data_ops")
    write_output(model, tmp_path)
    exe = build_host_program(tmp_path, "ops")
    samples = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        samples.append({n: random_value(graph.type_of(n), rng) for n in graph.inputs})
    out_types = [(graph.type_of(n).dtype.numpy, graph.type_of(n).shape) for n in graph.outputs]
    compiled = run_host_program(exe, [[s[n] for n in graph.inputs] for s in samples], out_types)
    return [(s, c, reference_run(graph, [s[n].copy() for n in graph.inputs])) for s, c in zip(samples, compiled)]


def check_cases(cases: Cases, tmp_path, oracle, float_rtol=None):
    """oracle(case index, list of input arrays) -> expected output. Exact unless float_rtol is given."""
    graph = cases.graph()
    for values, compiled, reference in run_graph(graph, tmp_path):
        for i, node in enumerate(graph.nodes):
            args = [values[n] if n in values else graph.tensors[n].data for n in node.inputs]
            want = np.asarray(oracle(i, args)).reshape(graph.type_of(node.outputs[0]).shape)
            for what, got in (("compiled C", compiled[i]), ("reference", reference[i])):
                msg = f"{what}, case {i}: {node.op} {dict(node.attrs)} on {[graph.type_of(n).shape for n in node.inputs]}"
                if float_rtol is not None and got.dtype.kind == "f":
                    np.testing.assert_allclose(got, want, rtol=float_rtol, atol=float_rtol * np.abs(want).max(), err_msg=msg)
                else:
                    np.testing.assert_array_equal(got, want.astype(got.dtype), err_msg=msg)


DTYPES = ["int8", "int16", "float32"]


def _shape(rng, rank, hi=5):
    return tuple(int(d) for d in rng.integers(1, hi + 1, rank))


@pytest.mark.parametrize("dtype", DTYPES + ["int32"])
def test_pad_many_shapes(tmp_path, dtype):
    rng = np.random.default_rng(11)
    cases, expect = Cases(), []
    q = QUANT[dtype]
    for _ in range(40):
        rank = int(rng.integers(1, 6))
        shape = _shape(rng, rank)
        pairs = [tuple(int(v) for v in rng.integers(0, 3, 2)) for _ in range(rank)]
        attrs = {"pad_width": tuple(v for p in pairs for v in p)}
        fill = q.zero_point if dtype == "int8" else 0
        if rng.random() < 0.5:
            fill = float(rng.standard_normal()) if dtype == "float32" else int(rng.integers(-100, 100))
            attrs["pad_value"] = fill
        cases.add("nn.pad", [TensorType(shape, DType(dtype), q)], dtype, q, **attrs)
        expect.append((pairs, fill))
    check_cases(cases, tmp_path, lambda i, a: np.pad(a[0], expect[i][0], constant_values=np.array(expect[i][1]).astype(a[0].dtype)))


def _slice_axis(rng, dim):
    """A normalized (begin, end, stride) taking at least one element, either direction."""
    stride = int(rng.choice([1, 1, 2, 3, -1, -2]))
    if stride > 0:
        begin = int(rng.integers(0, dim))
        return begin, int(rng.integers(begin + 1, dim + 1)), stride
    begin = int(rng.integers(0, dim))
    return begin, int(rng.integers(-1, begin)), stride


@pytest.mark.parametrize("dtype", DTYPES)
def test_strided_slice_many_shapes(tmp_path, dtype):
    rng = np.random.default_rng(12)
    cases, index = Cases(), []
    for _ in range(40):
        shape = _shape(rng, int(rng.integers(1, 6)), 6)
        axes = [_slice_axis(rng, d) for d in shape]
        picks = [list(range(b, e, s)) for b, e, s in axes]
        newshape = tuple(len(p) for p in picks)
        cases.add("strided_slice", [TensorType(shape, DType(dtype), QUANT[dtype])], dtype, QUANT[dtype],
                  begin=tuple(a[0] for a in axes), end=tuple(a[1] for a in axes), strides=tuple(a[2] for a in axes),
                  newshape=newshape)
        index.append(picks)

    def oracle(i, args):
        x = args[0]
        for axis, pick in enumerate(index[i]):
            x = np.take(x, pick, axis=axis)
        return x

    check_cases(cases, tmp_path, oracle)


@pytest.mark.parametrize("dtype", DTYPES)
def test_concatenate_many_shapes(tmp_path, dtype):
    rng = np.random.default_rng(13)
    cases, axes = Cases(), []
    for _ in range(30):
        rank = int(rng.integers(1, 5))
        base = _shape(rng, rank, 4)
        axis = int(rng.integers(-rank, rank))
        types_, constants = [], {}
        for k in range(int(rng.integers(1, 5))):
            shape = list(base)
            shape[axis] = int(rng.integers(1, 4))
            t = TensorType(tuple(shape), DType(dtype), QUANT[dtype])
            types_.append(t)
            if rng.random() < 0.2:
                constants[k] = random_value(t, rng)
        if len(constants) == len(types_):
            constants.pop(0)
        cases.add("concatenate", types_, dtype, QUANT[dtype], constants=constants, axis=axis)
        axes.append(axis)
    check_cases(cases, tmp_path, lambda i, a: np.concatenate(a, axis=axes[i]))


def _mbqm(x: int, m: int, s: int) -> int:
    """MultiplyByQuantizedMultiplier in plain integers, from TFLM_ARITHMETIC.md sections 0-1."""
    x = (x << max(s, 0)) & 0xFFFFFFFF
    x -= (x >> 31) << 32
    high = (x * m + (1 << 30)) >> 31
    e = max(-s, 0)
    mask = (1 << e) - 1
    return (high >> e) + ((high & mask) > (mask >> 1) + (high < 0))


def _mean_oracle(x: np.ndarray, axes, in_q, out_q, dtype) -> np.ndarray:
    moved = np.moveaxis(x, axes, list(range(x.ndim - len(axes), x.ndim)))
    rows = moved.reshape(-1, int(np.prod([x.shape[a] for a in axes])))
    n = rows.shape[1]
    if dtype == "float32":
        return rows.astype(np.float64).mean(axis=1)
    q, s = math.frexp(float(np.float32(in_q.scale)) / float(np.float32(out_q.scale)))
    m = int(math.floor(q * 2 ** 31 + 0.5))
    if m == 2 ** 31:
        m, s = m // 2, s + 1
    k = min(n.bit_length() - 1, 32, 31 + s)
    m, s = (m << k) // n, s - k
    info = np.iinfo(dtype)
    out = [_mbqm(int(r.astype(np.int64).sum()) - in_q.zero_point * n, m, s) + out_q.zero_point for r in rows]
    return np.clip(np.array(out), info.min, info.max)


@pytest.mark.parametrize("dtype", DTYPES)
def test_mean_many_shapes(tmp_path, dtype):
    rng = np.random.default_rng(14)
    cases, specs = Cases(), []
    for _ in range(40):
        rank = int(rng.integers(1, 6))
        shape = _shape(rng, rank, 6)
        axes = tuple(sorted(int(a) for a in rng.choice(rank, int(rng.integers(1, rank + 1)), replace=False)))
        in_q = out_q = None
        if dtype != "float32":
            zp = (lambda: int(rng.integers(-128, 128))) if dtype == "int8" else (lambda: 0)
            in_q = Quant.tensor(float(np.float32(rng.uniform(0.001, 0.1))), zp())
            out_q = Quant.tensor(float(np.float32(in_q.scale * rng.uniform(0.05, 2.0))), zp())
        cases.add("mean", [TensorType(shape, DType(dtype), in_q)], dtype, out_q, axis=axes,
                  keepdims=bool(rng.random() < 0.5))
        specs.append((axes, in_q, out_q))
    check_cases(cases, tmp_path, lambda i, a: _mean_oracle(a[0], specs[i][0], specs[i][1], specs[i][2], dtype),
                float_rtol=1e-5)


def _pool_oracle(x, kind, size, strides, padding, lo, hi):
    (kh, kw), (sh, sw), (top, left, bottom, right) = size, strides, padding
    n, h, w, c = x.shape
    oh, ow = (h + top + bottom - kh) // sh + 1, (w + left + right - kw) // sw + 1
    out = np.zeros((n, oh, ow, c), np.float64)
    for oy in range(oh):
        for ox in range(ow):
            y, xx = oy * sh - top, ox * sw - left
            win = x[:, max(y, 0):y + kh, max(xx, 0):xx + kw, :].reshape(n, -1, c)
            if kind == "max":
                out[:, oy, ox] = win.max(axis=1)
            elif x.dtype == np.float32:
                out[:, oy, ox] = win.astype(np.float64).mean(axis=1)
            else:  # round half away from zero
                acc, taps = win.astype(np.int64).sum(axis=1), win.shape[1]
                out[:, oy, ox] = np.sign(acc) * ((np.abs(acc) + taps // 2) // taps)
    return np.clip(out, lo, hi)


@pytest.mark.parametrize("kind", ["avg", "max"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_pool_many_windows(tmp_path, kind, dtype):
    rng = np.random.default_rng(15)
    cases, specs = Cases(), []
    q = QUANT[dtype]
    for _ in range(30):
        size = tuple(int(v) for v in rng.integers(1, 5, 2))
        strides = tuple(int(v) for v in rng.integers(1, 4, 2))
        padding = tuple(int(rng.integers(0, size[k % 2])) for k in range(4))  # < window: no empty window
        shape = (int(rng.integers(1, 3)), int(rng.integers(size[0], 10)), int(rng.integers(size[1], 10)),
                 int(rng.integers(1, 6)))
        activation = str(rng.choice(["none", "relu"]))
        cases.add(f"nn.{kind}_pool2d", [TensorType(shape, DType(dtype), q)], dtype, q, pool_size=size,
                  strides=strides, padding=padding, activation=activation)
        if dtype == "float32":
            lo, hi = (0.0 if activation == "relu" else -np.inf), np.inf
        else:
            info = np.iinfo(dtype)
            lo, hi = (max(info.min, q.zero_point) if activation == "relu" else info.min), info.max
        specs.append((size, strides, padding, lo, hi))
    check_cases(cases, tmp_path, lambda i, a: _pool_oracle(a[0], kind, *specs[i]), float_rtol=1e-5)


# -- reshape: an alias, no code ---------------------------------------------------------------------------

def test_reshape_is_free_and_a_constant_reshape_is_copied(tmp_path):
    cases = Cases()
    t = TensorType((2, 3, 4), DType.INT8, Q8)
    cases.add("reshape", [t], "int8", Q8, newshape=(4, -1))
    const = np.arange(24, dtype=np.int8).reshape(2, 3, 4)
    cases.add("reshape", [t], "int8", Q8, constants={0: const}, newshape=(24,))
    graph = cases.graph()
    model = compile_graph(graph, "ops", "test")
    assert model.plan.tensor_offset("out0") == model.plan.tensor_offset("in0_0")
    assert "mr_" not in model.files["ops.c"].split("ops_invoke")[1].split("return 0")[0]
    check_cases(cases, tmp_path, lambda i, a: a[0])


CHAIN = """def @main(%x: Tensor[(1, 6, 6, 4), int8, quant(0.05, -3)]) -> (%m, %c) {
  %p: Tensor[(1, 8, 8, 4), int8, quant(0.05, -3)] = nn.pad(%x, pad_width=[0, 0, 1, 1, 1, 1, 0, 0])
  %a: Tensor[(1, 4, 4, 4), int8, quant(0.05, -3)] = nn.avg_pool2d(%p, pool_size=[2, 2], strides=[2, 2])
  %b: Tensor[(1, 4, 4, 4), int8, quant(0.05, -3)] = nn.max_pool2d(%p, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 0, 0])
  %s: Tensor[(1, 2, 4, 4), int8, quant(0.05, -3)] = strided_slice(%a, begin=[0, 3, 0, 0], end=[1, -1, 4, 4], strides=[1, -2, 1, 1], newshape=[1, 2, 4, 4])
  %c: Tensor[(1, 6, 4, 4), int8, quant(0.05, -3)] = concatenate(%s, %b, axis=1)
  %r: Tensor[(6, 16), int8, quant(0.05, -3)] = reshape(%c, newshape=[6, 16])
  %m: Tensor[(6,), int8, quant(0.01, 2)] = mean(%r, axis=[1])
  return (%m, %c)
}"""


def test_chain_in_text_form(tmp_path):
    """Buffers reused across pads, pools, a reversed slice, concat, an aliased reshape and a mean; each op's
    numbers are proven above, so here the compiled chain only has to agree with the reference."""
    for _, compiled, reference in run_graph(parse_graph(CHAIN), tmp_path, seeds=range(4)):
        for got, want in zip(compiled, reference):
            np.testing.assert_array_equal(got, want)


# -- TFLite Micro as the oracle ---------------------------------------------------------------------------

POOL_NAMED = {
    "kws 25x5 global avg": dict(input_shape=(1, 25, 5, 64), filter_size=(25, 5), stride=(1, 1), zero_point=-128),
    "person_detect 3x3 avg": dict(input_shape=(1, 3, 3, 256), filter_size=(3, 3), stride=(2, 2)),
    "resnet 8x8 avg": dict(input_shape=(1, 8, 8, 64), filter_size=(8, 8), stride=(8, 8), zero_point=-12),
    "3x3/2 SAME clipped": dict(input_shape=(2, 7, 6, 5), filter_size=(3, 3), stride=(2, 2), padding="SAME"),
    "relu6": dict(input_shape=(1, 5, 5, 3), filter_size=(2, 2), stride=(1, 1), activation="RELU6", scale=0.03),
}


@pytest.mark.parametrize("op", ["AVERAGE_POOL_2D", "MAX_POOL_2D"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(POOL_NAMED))
def test_pool_named_vs_tflm(name, dtype, op):
    case = dict(POOL_NAMED[name])
    if dtype != "int8":
        case.pop("zero_point", None)
    check(pool_model(op, dtype, **case), float_scale=4.0)


@st.composite
def pool_cases(draw):
    dtype = draw(st.sampled_from(DTYPES))
    padding = draw(PADDINGS)
    size = (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
    low = (lambda k: k) if padding == "VALID" else (lambda k: 1)
    shape = (draw(st.integers(1, 2)), draw(st.integers(low(size[0]), 9)), draw(st.integers(low(size[1]), 9)),
             draw(st.integers(1, 5)))
    return dict(op=draw(st.sampled_from(["AVERAGE_POOL_2D", "MAX_POOL_2D"])), dtype=dtype, input_shape=shape,
                filter_size=size, stride=(draw(st.integers(1, 3)), draw(st.integers(1, 3))), padding=padding,
                activation=draw(ACTIVATIONS), scale=draw(log_uniform(1e-3, 0.2)), zero_point=draw(zero_points(dtype)))


@given(case=pool_cases())
def test_pool_matches_tflm(case):
    check(pool_model(**case), float_scale=4.0)


@st.composite
def mean_cases(draw):
    dtype = draw(st.sampled_from(DTYPES))
    rank = draw(st.integers(1, 5))
    shape = tuple(draw(st.lists(st.integers(1, 7), min_size=rank, max_size=rank)))
    axes = draw(st.lists(st.integers(-rank, rank - 1), min_size=1, max_size=rank, unique_by=lambda a: a % rank))
    in_scale = draw(log_uniform(1e-3, 0.2))
    quant = dict(in_quant=(in_scale, draw(zero_points(dtype))),
                 out_quant=(in_scale * draw(log_uniform(0.05, 4.0)), draw(zero_points(dtype))))
    return dict(dtype=dtype, shape=shape, axes=tuple(axes), keep_dims=draw(st.booleans()), **quant)


@given(case=mean_cases())
def test_mean_matches_tflm(case):
    check(mean_model(**case))


@pytest.mark.parametrize("same_quant", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,axes,keep", [((1, 7, 7, 32), (1, 2), True), ((1, 49, 10, 8), (1, 2), False),
                                             ((2, 3, 4, 5), (0, 3), True), ((1, 300, 3), (1,), False)])
def test_mean_named_vs_tflm(dtype, shape, axes, keep, same_quant):
    zp = (lambda v: v if dtype == "int8" else 0)
    q = dict(in_quant=(0.02, zp(-3)), out_quant=(0.02, zp(-3)) if same_quant else (0.013, zp(5)))
    check(mean_model(dtype, shape, axes, keep, **q))


@st.composite
def slice_cases(draw):
    rank = draw(st.integers(1, 4))
    shape = tuple(draw(st.lists(st.integers(1, 6), min_size=rank, max_size=rank)))
    begin = tuple(draw(st.integers(-d, d - 1)) for d in shape)
    end = tuple(draw(st.integers(-d - 1, d + 1)) for d in shape)
    strides = tuple(draw(st.sampled_from([1, 1, 2, 3, -1, -2])) for _ in shape)
    masks = {k: draw(st.integers(0, 2 ** rank - 1)) for k in ("begin_mask", "end_mask", "shrink_axis_mask")}
    masks["begin_mask"] &= ~masks["shrink_axis_mask"]  # a shrunk axis takes its begin index
    case = dict(dtype=draw(st.sampled_from(DTYPES)), shape=shape, begin=begin, end=end, strides=strides, **masks)
    out = strided_slice_shape(shape, begin, end, strides, **masks)
    # Empty slices (zero-size tensors) and shrinking with a negative stride are outside Micro Relay.
    assume(0 not in out and not any(masks["shrink_axis_mask"] >> a & 1 and strides[a] < 0 for a in range(rank)))
    return case


@given(case=slice_cases())
def test_strided_slice_matches_tflm(case):
    check(strided_slice_model(**case))


@given(dtype=st.sampled_from(DTYPES + ["int32"]), shape=st.lists(st.integers(1, 4), min_size=1, max_size=5),
       data=st.data())
def test_pad_matches_tflm(dtype, shape, data):
    paddings = tuple((data.draw(st.integers(0, 3)), data.draw(st.integers(0, 3))) for _ in shape)
    constant = data.draw(st.none() | st.integers(-100, 100))
    if dtype == "float32" and constant is not None:
        constant = constant / 7
    quant = (0.05, data.draw(zero_points(dtype))) if dtype != "int32" else (0.05, 0)
    check(pad_model(dtype, tuple(shape), paddings, constant, quant))


@pytest.mark.parametrize("dtype", DTYPES + ["int32"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat_and_reshape_vs_tflm(dtype, axis):
    shapes = ((2, 3, 4), (2, 3, 4), (2, 3, 4))
    shapes = tuple(tuple(d + i if a == axis % 3 else d for a, d in enumerate(s)) for i, s in enumerate(shapes))
    quant = (0.1, -3 if dtype == "int8" else 0)
    check(concat_model(dtype, shapes, axis, constant=(1,), quant=quant))
    check(reshape_model(dtype, in_shape=(1, 4, 4, 3), out_shape=(4, 12), quant=quant))


# -- what TFLite Micro rejects, we reject -----------------------------------------------------------------

def _graph_of(op, in_types, out_type, **attrs) -> Graph:
    names = [f"x{k}" for k in range(len(in_types))]
    tensors = {n: Tensor(n, t) for n, t in zip(names, in_types)}
    tensors["y"] = Tensor("y", out_type)
    return Graph(tensors, (Node(op, tuple(names), ("y",), attrs),), tuple(names), ("y",))


def _rejected(graph: Graph, match: str):
    with pytest.raises(CompileError, match=match):
        compile_graph(graph, "m", "test")


def test_pool_rejects_rescaling():
    t = TensorType((1, 4, 4, 2), DType.INT8, Q8)
    out = TensorType((1, 2, 2, 2), DType.INT8, Quant.tensor(0.1, -7))
    for op in ("nn.avg_pool2d", "nn.max_pool2d"):
        _rejected(_graph_of(op, [t], out, pool_size=(2, 2), strides=(2, 2)), "equal input and output quantization")
    b = TFLiteBuilder()  # TFLite Micro's Prepare fails on the same model
    b.op("AVERAGE_POOL_2D", [b.tensor("x", t.shape, "int8", scale=0.05, zero_point=-7)],
         [b.tensor("y", out.shape, "int8", scale=0.1, zero_point=-7)], filter_size=(2, 2), stride=(2, 2), padding="VALID")
    with pytest.raises(Exception):
        tflm_run(b.build(), [np.zeros(t.shape, np.int8)])


def test_pool_rejects_a_window_with_no_pixel():
    t = TensorType((1, 2, 2, 1), DType.FLOAT32)
    _rejected(_graph_of("nn.avg_pool2d", [t], TensorType((1, 3, 2, 1), DType.FLOAT32), pool_size=(2, 1),
                        strides=(2, 1), padding=(2, 0, 2, 0)), "holds no input pixel")


@pytest.mark.parametrize("dtype,quants,match", [
    ("int8", [(0.05, -7), (0.05, -6), (0.05, -7)], "requires them equal"),
    ("int8", [(0.05, -7), (0.06, -7), (0.05, -7)], "requires them equal"),
    ("int16", [(0.01, 3), (0.01, 3), (0.01, 3)], "zero point 0"),
])
def test_concatenate_rejects_what_tflm_rejects(dtype, quants, match):
    t = [TensorType((1, 2), DType(dtype), Quant.tensor(*q)) for q in quants[:2]]
    out = TensorType((1, 4), DType(dtype), Quant.tensor(*quants[2]))
    _rejected(_graph_of("concatenate", t, out, axis=1), match)
    b = TFLiteBuilder()
    names = [b.tensor(f"x{k}", (1, 2), dtype, scale=q[0], zero_point=q[1]) for k, q in enumerate(quants[:2])]
    b.op("CONCATENATION", names, [b.tensor("y", (1, 4), dtype, scale=quants[2][0], zero_point=quants[2][1])], axis=1)
    with pytest.raises(Exception):
        tflm_run(b.build(), [np.zeros((1, 2), dtype)] * 2)


def test_pad_and_slice_reject_bad_attributes():
    t = TensorType((2, 3), DType.INT8, Q8)
    _rejected(_graph_of("nn.pad", [t], TensorType((2, 5), DType.INT8, Q8), pad_width=(0, 0, 1)), "pad_width")
    _rejected(_graph_of("nn.pad", [t], TensorType((2, 5), DType.INT8, Q8), pad_width=(0, 0, 1, 1), pad_value=300),
              "does not fit")
    _rejected(_graph_of("strided_slice", [t], TensorType((1, 3), DType.INT8, Q8), begin=(0, 0), end=(1, 3),
                        strides=(0, 1), newshape=(1, 3)), "stride 0")


# -- merged views: copies become few, long runs ----------------------------------------------------------

def test_copy_views_merge_axes():
    g = _graph_of("nn.pad", [TensorType((1, 8, 8, 16), DType.INT8, Q8)], TensorType((1, 10, 10, 16), DType.INT8, Q8),
                  pad_width=(0, 0, 1, 1, 1, 1, 0, 0))
    p = get_op("nn.pad").prepare(g, g.nodes[0])
    assert (p["in_dims"], p["before"], p["after"]) == ([1, 1, 1, 8, 128], [0, 0, 0, 1, 16], [0, 0, 0, 1, 16])
    g = _graph_of("strided_slice", [TensorType((1, 8, 6, 4), DType.INT16, Q16)], TensorType((1, 6, 6, 4), DType.INT16, Q16),
                  begin=(0, 2, 0, 0), end=(1, 8, 6, 4), strides=(1, 1, 1, 1), newshape=(1, 6, 6, 4))
    p = get_op("strided_slice").prepare(g, g.nodes[0])
    assert (p["start"], p["dims"], p["steps"]) == (48, [1, 1, 1, 1, 144], [0, 0, 0, 0, 1])
    g = _graph_of("mean", [TensorType((1, 7, 7, 32), DType.INT8, Q8)], TensorType((1, 32), DType.INT8, Q8), axis=(1, 2))
    p = get_op("mean").prepare(g, g.nodes[0])
    assert (p["outer_dims"], p["inner_dims"], p["inner_steps"]) == ([1, 1, 1, 32], [1, 1, 1, 49], [0, 0, 0, 32])


# -- the kernels build clean for the host and for Cortex-M ----------------------------------------------

KERNELS = ["pad", "strided_slice", "concatenate", "mean", "avg_pool2d", "max_pool2d"]


@pytest.mark.parametrize("cc,flags", [
    ("gcc", ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2"]),
    ("arm-none-eabi-gcc", ["-mcpu=cortex-m4", "-mthumb", "-Os", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]),
])
def test_kernels_compile_strict(tmp_path, cc, flags):
    if shutil.which(cc) is None:
        pytest.skip(f"{cc} is not installed")
    for kernel in KERNELS:
        cmd = [cc, *flags, "-I", str(CRT_DIR / "include"), "-c", str(CRT_DIR / "src" / f"mr_{kernel}.c"),
               "-o", str(tmp_path / f"{kernel}.o")]
        result = subprocess.run(cmd, capture_output=True, text=True)
        assert result.returncode == 0, f"{' '.join(cmd)}\n{result.stderr}"
