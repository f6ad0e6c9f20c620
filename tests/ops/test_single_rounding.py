"""Single-rounding requantization (the `rounding="single"` attribute the QDQ lowering gives integer ops): the
exact real-valued result of the node rounded once, halves up, which is what an ONNX QDQ node means.

The oracle is exact arithmetic written here, independent of the op code: Python integers and fractions for
the fixed-point helper, and for each op its float64 meaning (dequantize, compute, divide by the output scale,
round once). The multiplier holds the rescale to 2^-31 of itself, so the two may differ only where the exact
value lies within a millionth of a step of a half. The C kernels (host gcc, and the Cortex-M4 under QEMU,
where the DSP kernels requantize such nodes in C) equal the reference interpreter bit for bit.
"""

from __future__ import annotations

import math
import shutil
import subprocess
from fractions import Fraction

import numpy as np
import pytest

from micro_relay.arith.fixedpoint import SINGLE_LIMIT, mbqm_single
from micro_relay.arith.multiplier import quantize_multiplier
from micro_relay.errors import CompileError
from micro_relay.ir.graph import Graph, Node, Tensor
from micro_relay.ir.registry import get_op
from micro_relay.ir.types import DType, Quant, TensorType
from micro_relay.ir.verify import verify
from micro_relay.lower import lower
from micro_relay.reference import run as reference_run
from support.c_harness import STRICT_FLAGS, compile_and_run

CRT_INCLUDE = __import__("pathlib").Path(__file__).resolve().parents[2] / "crt" / "include"
NEAR_TIE = 1e-6  # of a step: where a 31-bit multiplier and the float64 ratio may round apart


def _rounded_once(value: Fraction) -> int:
    return max(-SINGLE_LIMIT, min(SINGLE_LIMIT, math.floor(value + Fraction(1, 2))))


def _cases(count: int, seed: int):
    rng = np.random.default_rng(seed)
    accs = rng.integers(-2 ** 31, 2 ** 31, count)
    accs[::3] >>= rng.integers(0, 31, accs[::3].size)  # small accumulators, as layers have
    mults = rng.integers(2 ** 30, 2 ** 31, count)
    mults[::7] = 0  # a rescale too small for any multiplier
    shifts = rng.integers(-31, 31, count)
    return accs, mults, shifts


def test_mbqm_single_is_the_exact_product_rounded_once():
    accs, mults, shifts = _cases(20000, 1)
    got = mbqm_single(accs, mults, shifts)
    want = [_rounded_once(Fraction(int(a) * int(m), 2 ** (31 - int(s)))) for a, m, s in zip(accs, mults, shifts)]
    assert got.tolist() == want


def test_halves_round_up():
    # 3 * 2^30 * 2^-31 = 1.5 -> 2; -1.5 -> -1; 2^30 * 2^-31 = 0.5 -> 1
    assert mbqm_single([3, -3, 1, -1], [2 ** 30] * 4, [0] * 4).tolist() == [2, -1, 1, 0]


C_CHECK = r"""
#include <stdio.h>
#include "micro_relay/elementwise.h"
#include "micro_relay/fixedpoint.h"
static const long long acc[] = {ACCS};
static const long mult[] = {MULTS};
static const int shift[] = {SHIFTS};
int main(void)
{
    unsigned i;
    for (i = 0; i < sizeof shift / sizeof shift[0]; ++i) {
        printf("%ld\n", (long)mr_requant_single((int64_t)acc[i], (int32_t)mult[i], (int32_t)shift[i]));
    }
    for (i = 0; i < sizeof shift / sizeof shift[0]; ++i) { /* ADD and SUB on one exponent */
        mr_addsub_q_params p = {0};
        p.a_offset = (int32_t)(acc[i] % 97); p.b_offset = -(int32_t)(acc[i] % 89); p.out_offset = (int32_t)(i % 11) - 5;
        p.a_mult = (int32_t)mult[i]; p.b_mult = (int32_t)(mult[i] / 3); p.single_shift = 31 + (int32_t)(i % 32);
        printf("%ld %ld\n", (long)mr_addsub_single(&p, (int32_t)(i % 256) - 128, (int32_t)(i * 7 % 256) - 128, 1),
               (long)mr_addsub_single(&p, (int32_t)(i % 256) - 128, (int32_t)(i * 7 % 256) - 128, -1));
    }
    return 0;
}
"""


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_c_helpers_match_the_exact_arithmetic(cc, tmp_path):
    if shutil.which(cc) is None:
        pytest.skip(f"{cc} is not installed")
    accs, mults, shifts = _cases(3000, 2)
    source = (C_CHECK.replace("ACCS", ", ".join(f"{int(a)}LL" for a in accs))
              .replace("MULTS", ", ".join(f"{int(m)}L" for m in mults))
              .replace("SHIFTS", ", ".join(str(int(s)) for s in shifts)))
    (tmp_path / "check.c").write_text(source)
    exe = tmp_path / "check"
    build = subprocess.run([cc, *STRICT_FLAGS, "-O2", "-I", str(CRT_INCLUDE), str(tmp_path / "check.c"), "-o", str(exe)],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    lines = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split("\n")
    n = len(shifts)
    assert [int(v) for v in lines[:n]] == [_rounded_once(Fraction(int(a) * int(m), 2 ** (31 - int(s))))
                                           for a, m, s in zip(accs, mults, shifts)]
    for i, line in enumerate(lines[n:2 * n]):
        a_off, b_off, out_off = int(accs[i]) % 97, -(int(accs[i]) % 89), i % 11 - 5
        if int(accs[i]) < 0:  # C's % truncates toward zero
            a_off, b_off = -((-int(accs[i])) % 97), (-int(accs[i])) % 89
        a, b, total = i % 256 - 128, i * 7 % 256 - 128, 31 + i % 32
        terms = ((a + a_off) * int(mults[i]), (b + b_off) * (int(mults[i]) // 3))
        want = [_rounded_once(Fraction(terms[0] + sign * terms[1], 2 ** total)) + out_off for sign in (1, -1)]
        assert [int(v) for v in line.split()] == want, i


# ---- single-op graphs: the reference against each op's float64 meaning, the C against the reference ----

def _tensor(name, shape, scale, zp, dtype=DType.INT8, data=None, axis=None):
    if isinstance(scale, (list, tuple)):
        quant = Quant(tuple(float(s) for s in scale), (0,) * len(scale), axis)
    else:
        quant = Quant.tensor(float(scale), int(zp))
    return Tensor(name, TensorType(tuple(shape), dtype, quant), data)


def _single_op(op: str, tensors: list[Tensor], inputs: tuple[str, ...], attrs: dict, out_scale, out_zp) -> Graph:
    table = {t.name: t for t in tensors}
    node = Node(op, tuple(t.name for t in tensors), ("y",), {**attrs, "rounding": "single"})
    table["y"] = _tensor("y", (1,), out_scale, out_zp)
    (y_type,) = get_op(op).infer(Graph(table, (node,), inputs, ("y",)), node)
    table["y"] = _tensor("y", y_type.shape, out_scale, out_zp)
    return verify(Graph(table, (node,), inputs, ("y",)))


def _conv(rng, depthwise: bool, kernel: int, stride: int, pad: int, channels=(5, 6), size=9):
    cin, cout = (channels[0], channels[0]) if depthwise else channels
    w_shape = (1, kernel, kernel, cout) if depthwise else (cout, kernel, kernel, cin)
    w = rng.integers(-127, 128, w_shape).astype(np.int8)
    w_scales = [0.004 * 2 ** e for e in rng.uniform(-1, 1, cout)]
    bias = rng.integers(-3000, 3000, cout).astype(np.int32)
    x = _tensor("x", (1, size, size, cin), 0.05, 3)
    op = "nn.depthwise_conv2d" if depthwise else "nn.conv2d"
    tensors = [x, _tensor("w", w_shape, w_scales, 0, data=w, axis=3 if depthwise else 0),
               Tensor("b", TensorType((cout,), DType.INT32), bias)]
    attrs = {"strides": (stride, stride), "padding": (pad, pad, pad, pad)}
    return _single_op(op, tensors, ("x",), attrs, 0.09, -5)


def _dense(rng):
    w = rng.integers(-127, 128, (10, 40)).astype(np.int8)
    tensors = [_tensor("x", (2, 40), 0.03, -7), _tensor("w", (10, 40), 0.006, 0, data=w),
               Tensor("b", TensorType((10,), DType.INT32), rng.integers(-2000, 2000, 10).astype(np.int32))]
    return _single_op("nn.dense", tensors, ("x",), {"output_shape": (2, 10)}, 0.11, 4)


def _binary(op: str):
    tensors = [_tensor("x", (1, 4, 4, 8), 0.041, -9), _tensor("z", (1, 1, 1, 8), 0.023, 12)]
    return _single_op(op, tensors, ("x", "z"), {}, 0.052 if op != "multiply" else 0.0071, 3)


def _batch_matmul():
    return _single_op("nn.batch_matmul", [_tensor("x", (2, 5, 7), 0.031, 2), _tensor("z", (2, 7, 3), 0.027, -4)],
                      ("x", "z"), {}, 0.043, 1)


def _requantize():
    return _single_op("qnn.quantize", [_tensor("x", (3, 50), 0.037, 6)], ("x",), {}, 0.1, -20)


def _real(graph: Graph, name: str, values: np.ndarray) -> np.ndarray:
    q = graph.type_of(name).quant
    if len(q.scales) > 1:  # per channel, zero points 0
        shape = [1] * values.ndim
        shape[q.axis] = len(q.scales)
        return values.astype(np.float64) * np.asarray(q.scales).reshape(shape)
    return (values.astype(np.float64) - q.zero_point) * q.scale


def _meaning(graph: Graph, inputs: list[np.ndarray]) -> np.ndarray:
    """The node's real-valued result in float64 from the dequantized operands, in output steps (before
    rounding and the zero point)."""
    node = graph.nodes[0]
    values = dict(zip(graph.inputs, inputs))
    real = {n: _real(graph, n, values[n]) for n in graph.inputs}
    out = graph.type_of("y")
    if node.op in ("nn.conv2d", "nn.depthwise_conv2d"):
        x, w = real["x"], _real(graph, "w", graph.constant("w"))
        bias = graph.constant("b").astype(np.float64) * graph.type_of("x").quant.scale * np.asarray(
            graph.type_of("w").quant.scales)
        (stride, _), (pad, *_) = node.attrs["strides"], node.attrs["padding"]
        x = np.pad(x, ((0, 0), (pad, pad), (pad, pad), (0, 0)))
        _, oh, ow, oc = out.shape
        k = w.shape[1]
        y = np.zeros(out.shape)
        for oy, ox in np.ndindex(oh, ow):
            window = x[0, oy * stride:oy * stride + k, ox * stride:ox * stride + k, :]
            if node.op == "nn.depthwise_conv2d":
                y[0, oy, ox] = (window * w[0]).sum(axis=(0, 1))
            else:
                y[0, oy, ox] = np.tensordot(w, window, axes=([1, 2, 3], [0, 1, 2]))
        y = y + bias
    elif node.op == "nn.dense":
        scales = graph.type_of("x").quant.scale * graph.type_of("w").quant.scale
        y = real["x"] @ _real(graph, "w", graph.constant("w")).T + graph.constant("b") * scales
    elif node.op == "nn.batch_matmul":
        y = real["x"] @ real["z"]
    elif node.op == "qnn.quantize":
        y = real["x"]
    else:
        y = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply}[node.op](real["x"], real["z"])
    return y / out.quant.scale


GRAPHS = {
    "conv3x3_stride2_padded": lambda rng: _conv(rng, False, 3, 2, 1),
    "conv_pointwise": lambda rng: _conv(rng, False, 1, 1, 0, channels=(16, 12), size=6),
    "conv_pointwise_narrow": lambda rng: _conv(rng, False, 1, 1, 0, channels=(6, 10), size=6),
    "depthwise5x5": lambda rng: _conv(rng, True, 5, 1, 2, channels=(8, 8), size=8),
    "depthwise3x3_padded": lambda rng: _conv(rng, True, 3, 1, 1, channels=(8, 8), size=8),
    "dense": _dense,
    "add_broadcast": lambda rng: _binary("add"),
    "subtract_broadcast": lambda rng: _binary("subtract"),
    "multiply_broadcast": lambda rng: _binary("multiply"),
    "batch_matmul": lambda rng: _batch_matmul(),
    "requantize": lambda rng: _requantize(),
}


def _random_inputs(graph: Graph, rng, count: int) -> list[list[np.ndarray]]:
    return [[rng.integers(-128, 128, graph.type_of(n).shape).astype(np.int8) for n in graph.inputs]
            for _ in range(count)]


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_single_rounding_node_is_its_exact_result_rounded_once(name, tmp_path):
    rng = np.random.default_rng(5)
    graph = GRAPHS[name](rng)
    samples = _random_inputs(graph, rng, 3)
    out_zp = graph.type_of("y").quant.zero_point
    compiled = compile_and_run(graph, samples, tmp_path)
    for sample, (c_out,) in zip(samples, compiled):
        (got,) = reference_run(graph, sample)
        steps = _meaning(graph, sample)
        want = np.clip(np.floor(steps + 0.5) + out_zp, -128, 127)
        tie = np.abs(steps - np.floor(steps) - 0.5) < NEAR_TIE
        assert np.array_equal(got[~tie], want[~tie]), f"{np.sum(got[~tie] != want[~tie])} outputs off"
        assert np.abs(got.astype(np.int64) - want).max() <= 1
        assert np.array_equal(c_out.reshape(got.shape), got)


@pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None or shutil.which("qemu-system-arm") is None,
                    reason="arm-none-eabi-gcc and qemu-system-arm are needed (apt-get install gcc-arm-none-eabi "
                           "qemu-system-arm)")
@pytest.mark.parametrize("name", ["conv3x3_stride2_padded", "conv_pointwise", "conv_pointwise_narrow",
                                  "depthwise3x3_padded", "depthwise5x5", "dense", "add_broadcast"])
def test_single_rounding_on_the_cortex_m4_dsp_kernels(name, tmp_path):
    """The DSP kernels keep their multiply-accumulate loops and requantize every channel in C; CMSIS-NN, which
    rounds as TFLite does, refuses the node."""
    from micro_relay.bench.measure import bench_graph

    graph = GRAPHS[name](np.random.default_rng(5))
    (low,) = lower(graph, "cortex-m4").nodes
    assert low.kernel.backend == ("portable" if name.startswith("add") else "arm_dsp")
    if name.startswith(("conv", "depthwise", "dense")):
        (cmsis,) = lower(graph, "cortex-m4", "cmsis-nn").nodes
        assert cmsis.kernel.backend == "arm_dsp" and "one rounding" in dict(cmsis.fallback)["cmsis_nn"]
    result = bench_graph(graph, f"{name}_case", "test graph", "mps2-an386", runs=1, seed=3, keep=tmp_path)
    assert result["outputs_match"] is True and result["max_abs_diff"] == 0, result


def test_onnx_quantize_rounds_halves_to_even(tmp_path):
    """QuantizeLinear (ties "even", which the QDQ lowering sets) against TFLite's QUANTIZE (halves away from
    zero), on values that are exact halves of the scale, in the reference and in C."""
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.25, 200.5], np.float32) * np.float32(0.25)
    want = {"even": [0, 2, 2, 0, -2, -2, 3, 127], "away": [1, 2, 3, -1, -2, -3, 3, 127]}
    for ties, expected in want.items():
        table = {"x": Tensor("x", TensorType((8,), DType.FLOAT32)), "y": _tensor("y", (8,), 0.25, 0)}
        node = Node("qnn.quantize", ("x",), ("y",), {"ties": ties})
        graph = verify(Graph(table, (node,), ("x",), ("y",)))
        (got,) = reference_run(graph, [x])
        assert got.tolist() == expected, ties
        ((c_out,),) = compile_and_run(graph, [[x]], tmp_path / ties)
        assert c_out.tolist() == expected, ties


def test_single_rounding_is_refused_for_int16():
    w = np.ones((4, 1, 1, 4), np.int8)
    tensors = [_tensor("x", (1, 2, 2, 4), 0.01, 0, DType.INT16), _tensor("w", (4, 1, 1, 4), 0.01, 0, data=w)]
    table = {t.name: t for t in tensors}
    table["y"] = _tensor("y", (1, 2, 2, 4), 0.02, 0, DType.INT16)
    node = Node("nn.conv2d", ("x", "w", ""), ("y",), {"rounding": "single"})
    graph = Graph(table, (node,), ("x",), ("y",))
    with pytest.raises(CompileError, match="single-rounding requantization is for int8"):
        get_op("nn.conv2d").prepare(graph, node)


def test_tflite_rounding_is_unchanged_by_default():
    """Without the attribute a node keeps TFLite Micro's two roundings: one accumulator where they differ."""
    mult, shift = quantize_multiplier(0.3)  # shift -1
    from micro_relay.arith.fixedpoint import mbqm32

    acc = np.arange(-4000, 4000)
    assert not np.array_equal(mbqm32(acc, mult, shift), mbqm_single(acc, mult, shift))
