"""QDQ lowering of ops whose integer kernels fix their output quantization (logistic 1/256 zp -128, tanh
1/128 zp 0): the op writes in the kernel's units and a requantize takes the result to the scale and zero
point the model's quantize asks for. Softmax stays float (its int8 kernel is up to a unit of 1/256 off the
exact value). Checked on every int8 input value against what the QDQ graph means, computed with numpy in
float64 (ONNX semantics: round half to even)."""

from __future__ import annotations

import numpy as np
import pytest

from micro_relay.ir.text import parse_graph, print_graph
from micro_relay.ir.verify import verify
from micro_relay.passes.dead_code import eliminate_dead_code
from micro_relay.passes.lower_qdq import lower_qdq
from micro_relay.reference import run

IN_SCALE, IN_ZP = 0.045, 7


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


FLOAT_FNS = {"sigmoid": lambda x: 1 / (1 + np.exp(-x)), "tanh": np.tanh, "nn.softmax": _softmax}


def _graph(op: str, shape, out_scale: float, out_zp: int) -> str:
    t = f"({', '.join(map(str, shape))})"
    return f"""
def @main(%x: Tensor[{t}, float32]) -> (%y) {{
  %xq: Tensor[{t}, int8, quant({IN_SCALE}, {IN_ZP})] = qnn.quantize(%x)
  %xf: Tensor[{t}, float32] = qnn.dequantize(%xq)
  %a: Tensor[{t}, float32] = {op}(%xf)
  %aq: Tensor[{t}, int8, quant({out_scale!r}, {out_zp})] = qnn.quantize(%a)
  %y: Tensor[{t}, float32] = qnn.dequantize(%aq)
  return (%y)
}}"""


def _meaning(op: str, x: np.ndarray, out_scale: float, out_zp: int) -> np.ndarray:
    """dequantize(quantize(op(dequantize(quantize(x))))) in float64."""
    xf = (np.clip(np.round(x.astype(np.float64) / IN_SCALE) + IN_ZP, -128, 127) - IN_ZP) * IN_SCALE
    q = np.clip(np.round(FLOAT_FNS[op](xf) / out_scale) + out_zp, -128, 127)
    return (q - out_zp) * out_scale


def _every_int8_input(shape) -> np.ndarray:
    """All 256 int8 values (shuffled, so softmax rows mix large and small), as the floats they dequantize to."""
    q = np.random.default_rng(3).permutation(np.arange(-128, 128))
    return ((q - IN_ZP) * IN_SCALE).astype(np.float32).reshape(shape)


# (op, shape, model's output scale and zero point): calibrated ranges as quantize_static writes them, finer
# and coarser than the kernel's own unit, with zero points the kernel would not produce
CASES = [
    ("sigmoid", (1, 256), 0.9 / 255, -128),
    ("sigmoid", (1, 256), 0.52 / 255, -128),  # a gate that never opens past 0.52: nearly 2x finer than 1/256
    ("tanh", (1, 256), 1.7 / 255, -10),
    ("tanh", (1, 256), 2.4 / 255, 0),
]


@pytest.mark.parametrize("op, shape, out_scale, out_zp", CASES, ids=[f"{c[0]}-{c[2] * 255:.1f}-{c[3]}" for c in CASES])
def test_fixed_output_op_is_requantized_to_the_models_scale(op, shape, out_scale, out_zp):
    graph = verify(parse_graph(_graph(op, shape, out_scale, out_zp)))
    text = print_graph(graph)
    lowered = verify(eliminate_dead_code(lower_qdq(graph)))
    assert print_graph(graph) == text  # pure
    assert [n.op for n in lowered.nodes] == ["qnn.quantize", op, "qnn.quantize", "qnn.dequantize"]
    integer_op, requantize = lowered.nodes[1], lowered.nodes[2]
    assert lowered.type_of(integer_op.inputs[0]).dtype.value == "int8"
    assert lowered.type_of(requantize.inputs[0]).dtype.value == "int8"  # int8 -> int8
    assert requantize.outputs == ("aq",) and lowered.type_of("aq").quant.scales == (out_scale,)
    assert requantize.attrs.get("rounding") == "single"
    x = _every_int8_input(shape)
    (got,) = run(lowered, [x])
    steps = np.abs(got.astype(np.float64) - _meaning(op, x, out_scale, out_zp)) / out_scale
    assert steps.max() <= 1.001, f"{np.mean(steps > 1.001):.3f} of outputs more than one step off"


@pytest.mark.parametrize("out_scale", [0.7 / 255, 1.0 / 255, 1 / 256])
def test_softmax_stays_float_and_is_quantized_once(out_scale):
    """Even where the model asks for the int8 kernel's own 1/256: the float softmax, quantized once, is
    within one step of the float64 meaning on every input (one only at float32 rounding ties)."""
    graph = verify(parse_graph(_graph("nn.softmax", (16, 16), out_scale, -128)))
    lowered = verify(eliminate_dead_code(lower_qdq(graph)))
    assert [n.op for n in lowered.nodes] == ["qnn.quantize", "qnn.dequantize", "nn.softmax", "qnn.quantize",
                                             "qnn.dequantize"]
    x = _every_int8_input((16, 16))
    (got,) = run(lowered, [x])
    steps = np.abs(got.astype(np.float64) - _meaning("nn.softmax", x, out_scale, -128)) / out_scale
    assert steps.max() <= 1.001 and np.mean(steps > 0.001) < 0.01


@pytest.mark.parametrize("op, out_scale", [("sigmoid", 0.4 / 255), ("tanh", 0.9 / 255)])
def test_a_model_scale_finer_than_half_the_kernels_unit_keeps_the_op_in_float(op, out_scale):
    """A requantize from 1/256 (1/128) to a scale 2.5x finer would be two steps off at times: the op stays
    float between its dequantize and quantize, as the model wrote it."""
    graph = verify(parse_graph(_graph(op, (1, 256), out_scale, -128)))
    lowered = verify(eliminate_dead_code(lower_qdq(graph)))
    assert [n.op for n in lowered.nodes] == ["qnn.quantize", "qnn.dequantize", op, "qnn.quantize", "qnn.dequantize"]
    assert lowered.type_of(lowered.nodes[2].outputs[0]).dtype.value == "float32"
    x = _every_int8_input((1, 256))
    (got,) = run(lowered, [x])
    assert np.abs(got - _meaning(op, x, out_scale, -128)).max() <= out_scale * 1.001


@pytest.mark.parametrize("op, out_scale, out_zp", [("sigmoid", 1 / 256, -128), ("tanh", 1 / 128, 0)])
def test_no_requantize_when_the_model_asks_for_the_kernels_own_units(op, out_scale, out_zp):
    graph = verify(parse_graph(_graph(op, (1, 256), out_scale, out_zp)))
    lowered = verify(eliminate_dead_code(lower_qdq(graph)))
    assert [n.op for n in lowered.nodes] == ["qnn.quantize", op, "qnn.dequantize"]
    x = _every_int8_input((1, 256))
    (got,) = run(lowered, [x])
    assert np.abs(got - _meaning(op, x, out_scale, out_zp)).max() <= out_scale * 1.001
