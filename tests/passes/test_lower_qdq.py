"""QDQ lowering of one-input element-wise ops (sigmoid, tanh, hard_swish, elu, abs): each becomes one int8 op
whose table is what the QDQ graph means, dequantize -> float op -> quantize, for any output quantization the
model asks for (finer or coarser than TFLite's logistic and tanh units, with any zero point): no second
rounding. Softmax stays float (its int8 kernel is up to a unit of 1/256 off the exact value). Checked on
every int8 input value against the QDQ graph's meaning computed with numpy in float64 (ONNX semantics: round
half to even): equal on all 256, and the compiled C equal to the reference."""

from __future__ import annotations

import numpy as np
import pytest

from micro_relay.ir.text import parse_graph, print_graph
from micro_relay.ir.verify import verify
from micro_relay.passes.dead_code import eliminate_dead_code
from micro_relay.passes.lower_qdq import lower_qdq
from micro_relay.passes import run_pipeline
from micro_relay.reference import run
from support.c_harness import compile_and_run

IN_SCALE, IN_ZP = 0.045, 7


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


FLOAT_FNS = {"sigmoid": lambda x: 1 / (1 + np.exp(-x)), "tanh": np.tanh, "nn.softmax": _softmax,
             "nn.hard_swish": lambda x: x * np.clip(x + 3, 0, 6) / 6, "nn.elu": lambda x: np.where(x < 0, np.expm1(x), x),
             "abs": np.abs}


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
# and coarser than TFLite's logistic and tanh units (1/256, 1/128), with zero points those would not produce
CASES = [
    ("sigmoid", (1, 256), 0.9 / 255, -128),
    ("sigmoid", (1, 256), 0.52 / 255, -128),  # a gate that never opens past 0.52: nearly 2x finer than 1/256
    ("sigmoid", (1, 256), 0.4 / 255, -128),   # 2.5x finer: a requantize from 1/256 would be two steps off
    ("tanh", (1, 256), 1.7 / 255, -10),
    ("tanh", (1, 256), 2.4 / 255, 0),
    ("tanh", (1, 256), 0.9 / 255, 0),
    ("sigmoid", (1, 256), 1 / 256, -128),     # TFLite's own units: the same one op
    ("tanh", (1, 256), 1 / 128, 0),
    ("nn.hard_swish", (1, 256), 6.1 / 255, -60),
    ("nn.elu", (1, 256), 5.0 / 255, -30),
    ("abs", (1, 256), 5.8 / 255, -128),
]


@pytest.mark.parametrize("op, shape, out_scale, out_zp", CASES, ids=[f"{c[0]}-{c[2] * 255:.1f}-{c[3]}" for c in CASES])
def test_one_input_op_is_one_int8_table_of_the_qdq_meaning(op, shape, out_scale, out_zp):
    graph = verify(parse_graph(_graph(op, shape, out_scale, out_zp)))
    text = print_graph(graph)
    lowered = verify(eliminate_dead_code(lower_qdq(graph)))
    assert print_graph(graph) == text  # pure
    assert [n.op for n in lowered.nodes] == ["qnn.quantize", op, "qnn.dequantize"]
    integer_op = lowered.nodes[1]
    assert lowered.type_of(integer_op.inputs[0]).dtype.value == "int8" and integer_op.attrs["rounding"] == "single"
    assert integer_op.outputs == ("aq",) and lowered.type_of("aq").quant.scales == (out_scale,)
    x = _every_int8_input(shape)
    (got,) = run(lowered, [x])
    steps = np.abs(got.astype(np.float64) - _meaning(op, x, out_scale, out_zp)) / out_scale
    assert steps.max() < 0.001, f"{np.mean(steps > 0.001):.4f} of the 256 inputs differ from the float64 meaning"


@pytest.mark.parametrize("op, shape, out_scale, out_zp", CASES[2::3], ids=[c[0] for c in CASES[2::3]])
def test_the_tables_c_computes_what_the_reference_does(op, shape, out_scale, out_zp, tmp_path):
    graph = run_pipeline(verify(parse_graph(_graph(op, shape, out_scale, out_zp))))
    x = _every_int8_input(shape)
    (compiled,) = compile_and_run(graph, [[x]], tmp_path)
    np.testing.assert_array_equal(compiled[0].reshape(-1), run(graph, [x])[0].reshape(-1))


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


def _b64(a: np.ndarray) -> str:
    import base64
    return base64.b64encode(a.tobytes()).decode()


def _scalar_graph(op: str, constant_first: bool, c_raw: int, c_scale: float, x_scale: float, out_scale: float,
                  out_zp: int) -> str:
    pair = "%cf, %xf" if constant_first else "%xf, %cf"
    return f"""
def @main(%x: Tensor[(1, 256), float32]) -> (%y) {{
  %c = constant(Tensor[(1,), int8, quant({c_scale!r}, -128)], "{_b64(np.array([c_raw], np.int8))}")
  %cf: Tensor[(1,), float32] = qnn.dequantize(%c)
  %xq: Tensor[(1, 256), int8, quant({x_scale!r}, 0)] = qnn.quantize(%x)
  %xf: Tensor[(1, 256), float32] = qnn.dequantize(%xq)
  %a: Tensor[(1, 256), float32] = {op}({pair})
  %aq: Tensor[(1, 256), int8, quant({out_scale!r}, {out_zp})] = qnn.quantize(%a)
  %y: Tensor[(1, 256), float32] = qnn.dequantize(%aq)
  return (%y)
}}"""


# (op, constant first, the constant's raw value and scale (zero point -128), input scale, output scale and zero
# point): erf(x) + 1 of an exported GELU as quantize_static calibrates it (the keyword transformer's numbers:
# an output scale one float32 ulp from the input's puts the outputs within float32 rounding of a tie); 1 - x
# (the same, from the other side); x * 0.5; x / 6
SCALAR_CASES = [
    ("add", False, 127, 0.003921569, 0.007843137, 0.007843138, -128),
    ("multiply", False, 0, 1 / 255, 0.05, 0.025, 3),
    ("subtract", True, 127, 1 / 255, 1 / 127.5, 2 / 255, -128),
    ("divide", False, -128 + 102, 6 / 102, 0.1, 0.0166, -1),
]


@pytest.mark.parametrize("op, first, c_raw, c_scale, x_scale, out_scale, out_zp", SCALAR_CASES,
                         ids=[c[0] for c in SCALAR_CASES])
def test_op_with_a_constant_scalar_is_a_lookup_of_its_float32_meaning(op, first, c_raw, c_scale, x_scale,
                                                                      out_scale, out_zp, tmp_path):
    """The table is dequantize -> the float32 op -> quantize on every input byte, computed here independently
    with float32 numpy operations (as onnxruntime runs them), and the compiled C looks up the same bytes."""
    graph = verify(parse_graph(_scalar_graph(op, first, c_raw, c_scale, x_scale, float(out_scale), out_zp)))
    lowered = verify(eliminate_dead_code(lower_qdq(graph)))
    assert [n.op for n in lowered.nodes] == ["qnn.quantize", "lookup", "qnn.dequantize"]
    q = np.arange(-128, 128)
    xf = (q.astype(np.float32) * np.float32(x_scale)).astype(np.float32)
    cf = np.float32(c_raw + 128) * np.float32(c_scale)
    fn = {"add": np.add, "multiply": np.multiply, "subtract": np.subtract, "divide": np.divide}[op]
    yf = (fn(cf, xf) if first else fn(xf, cf)).astype(np.float32)
    want = np.clip(np.rint(yf / np.float32(out_scale)) + out_zp, -128, 127)
    x = (q * np.float32(x_scale)).astype(np.float32).reshape(1, 256)
    (got,) = run(lowered, [x])
    np.testing.assert_array_equal(np.rint(got.reshape(-1) / np.float32(out_scale)) + out_zp, want)
    graph = run_pipeline(graph)
    (compiled,) = compile_and_run(graph, [[x]], tmp_path)
    np.testing.assert_array_equal(compiled[0].reshape(-1), run(graph, [x])[0].reshape(-1))
