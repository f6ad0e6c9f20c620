"""Unary math against external oracles: compiled C and the reference interpreter against TFLite Micro for ABS,
NEG, EXP, LOG, SQRT, RSQRT, SQUARE, FLOOR, CEIL, ROUND, HARD_SWISH, ELU (float32; int8 ABS, RSQRT, HARD_SWISH,
ELU) and int16 ABS, RSQRT, LOGISTIC, TANH. (What TFLite Micro does not run, GELU and the ONNX-only ops, is held
against torch and onnxruntime in test_unary_math_vs_torch.py.)

Integer models see every input value of their type (all 256 int8 values, all 65536 int16 ones), so every
table entry and branch is compared; quantization parameters are drawn where TFLite Micro leaves them free and
pinned where its Prepare fixes them (int16 zero points 0, LOGISTIC/TANH int16 output 2^-15). Float models
see normal values, halves and the special values (support/tflite_unary_models.py says how they are judged).
Hostile parameters end in a one-line CompileError, and where TFLite Micro's Prepare refuses too, it is
checked to refuse.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import ROOT
from micro_relay.errors import CompileError
from micro_relay.frontend.tflite import read_tflite
from micro_relay.passes import run_pipeline
from support.tflite_models import SEEDS, check, log_uniform, zero_points
from support.tflite_unary_models import (EXACT_FLOAT_OPS, LIBM_ULPS, all_int8, all_int16, check_float, float_inputs,
                                         unary_math_model)
from support.tflm_oracle import tflm_run

SHAPES = st.lists(st.integers(1, 6), min_size=1, max_size=4).map(tuple)
# how far float inputs spread: past EXP's overflow, LOG's and SQRT's negative side, HARD_SWISH's kinks
SPREAD = {"EXP": 40.0, "LOG": 20.0, "SQRT": 20.0, "RSQRT": 20.0, "SQUARE": 1e20, "ELU": 10.0, "LOGISTIC": 12.0,
          "TANH": 6.0}


def _float_check(op: str, shape, seed: int, **options) -> None:
    model = unary_math_model(op, "float32", shape, **options)
    x = float_inputs(shape, np.random.default_rng(seed), SPREAD.get(op, 5.0))
    check_float(model, [[x]], 0 if op in EXACT_FLOAT_OPS else LIBM_ULPS[op])


# -- float32 vs TFLite Micro -----------------------------------------------------------------------------

@given(op=st.sampled_from(EXACT_FLOAT_OPS + tuple(LIBM_ULPS)), shape=SHAPES, seed=SEEDS)
def test_float_matches_tflm(op, shape, seed):
    _float_check(op, shape, seed)


# -- int8 vs TFLite Micro --------------------------------------------------------------------------------

@st.composite
def int8_cases(draw) -> dict:
    """ABS and the activations keep the input's range; RSQRT's output range is 1/sqrt(smallest input)."""
    op = draw(st.sampled_from(["ABS", "RSQRT", "HARD_SWISH", "ELU"]))
    in_q = (draw(log_uniform(0.005, 0.5)), draw(zero_points("int8")))
    if op == "RSQRT":
        out_scale = in_q[0] ** -0.5 / 127 * draw(log_uniform(0.05, 3.0))
    else:
        out_scale = in_q[0] * draw(st.one_of(st.just(1.0), log_uniform(0.3, 3.0)))
    return dict(op=op, in_quant=in_q, out_quant=(out_scale, draw(zero_points("int8"))))


@given(case=int8_cases())
def test_int8_matches_tflm(case):
    low = case["in_quant"][1] if case["op"] == "RSQRT" else -128
    check(unary_math_model(dtype="int8", **case), samples=[[all_int8(low=low)]])


# -- int16 vs TFLite Micro -------------------------------------------------------------------------------

@st.composite
def int16_cases(draw) -> dict:
    """LOGISTIC and TANH: power-of-two input scales take TFLite's path without a multiplier."""
    op = draw(st.sampled_from(["ABS", "RSQRT", "LOGISTIC", "TANH"]))
    if op == "ABS":
        in_s = draw(log_uniform(1e-5, 1e-2))
        out_q = (in_s * draw(st.one_of(st.just(1.0), log_uniform(0.3, 3.0))), 0)
    elif op == "RSQRT":
        in_s = draw(log_uniform(1e-5, 1e-1))
        out_q = (in_s ** -0.5 / 32767 * draw(log_uniform(0.05, 3.0)), 0)
    else:
        in_s = draw(st.one_of(st.sampled_from([2.0 ** -12, 2.0 ** -11, 2.0 ** -10]), log_uniform(1e-6, 2.5)))
        out_q = (2.0 ** -15, 0)
    return dict(op=op, in_quant=(in_s, 0), out_quant=out_q)


@given(case=int16_cases())
def test_int16_matches_tflm(case):
    x = all_int16()
    if case["op"] == "RSQRT":  # negative inputs fail TFLite Micro's Invoke (see the test below)
        x = x[:, 32768:]
    check(unary_math_model(dtype="int16", shape=x.shape, **case), samples=[[x]])


# -- the shapes real networks have -----------------------------------------------------------------------

NAMED = {
    "HARD_SWISH int8 MobileNetV3 block [1,24,24,72]": dict(op="HARD_SWISH", shape=(1, 24, 24, 72),
                                                            in_quant=(0.06, -5), out_quant=(0.04, -110)),
    "HARD_SWISH int8 pooled head [1,1,1,1280]": dict(op="HARD_SWISH", shape=(1, 1, 1, 1280), in_quant=(0.1, 3),
                                                     out_quant=(0.05, -120)),
    "HARD_SWISH float32 [1,48,48,16]": dict(op="HARD_SWISH", dtype="float32", shape=(1, 48, 48, 16)),
    "ELU int8 [1,1,1,1280]": dict(op="ELU", shape=(1, 1, 1, 1280), in_quant=(0.04, 10), out_quant=(0.03, 20)),
    "ELU float32 KWS [1,49,10,8]": dict(op="ELU", dtype="float32", shape=(1, 49, 10, 8)),
    "ABS int8 KWS features [1,49,10,1]": dict(op="ABS", shape=(1, 49, 10, 1), in_quant=(0.1, -20),
                                              out_quant=(0.06, -128)),
    "ABS int16 KWS features [1,49,10,1]": dict(op="ABS", dtype="int16", shape=(1, 49, 10, 1), in_quant=(3e-4, 0),
                                               out_quant=(2e-4, 0)),
    "ABS float32 image [1,96,96,1]": dict(op="ABS", dtype="float32", shape=(1, 96, 96, 1)),
    "NEG float32 image [1,96,96,1]": dict(op="NEG", dtype="float32", shape=(1, 96, 96, 1)),
    "RSQRT int8 variance [1,1,1,1280]": dict(op="RSQRT", shape=(1, 1, 1, 1280), in_quant=(0.02, -128),
                                             out_quant=(0.06, -128)),
    "RSQRT int16 variance [1,1,1,256]": dict(op="RSQRT", dtype="int16", shape=(1, 1, 1, 256), in_quant=(2e-4, 0),
                                             out_quant=(3e-3, 0)),
    "RSQRT float32 variance [1,1,1,64]": dict(op="RSQRT", dtype="float32", shape=(1, 1, 1, 64)),
    "SQRT float32 [1,1,1,1280]": dict(op="SQRT", dtype="float32", shape=(1, 1, 1, 1280)),
    "SQUARE float32 KWS [1,49,10,1]": dict(op="SQUARE", dtype="float32", shape=(1, 49, 10, 1)),
    "EXP float32 logits [1,10]": dict(op="EXP", dtype="float32", shape=(1, 10)),
    "LOG float32 spectrogram [1,49,40]": dict(op="LOG", dtype="float32", shape=(1, 49, 40)),
    "FLOOR float32 [1,8,8,8]": dict(op="FLOOR", dtype="float32", shape=(1, 8, 8, 8)),
    "CEIL float32 [1,8,8,8]": dict(op="CEIL", dtype="float32", shape=(1, 8, 8, 8)),
    "ROUND float32 [1,8,8,8]": dict(op="ROUND", dtype="float32", shape=(1, 8, 8, 8)),
    "LOGISTIC int16 LSTM gates [1,256]": dict(op="LOGISTIC", dtype="int16", shape=(1, 256), in_quant=(2 ** -12, 0),
                                              out_quant=(2 ** -15, 0)),
    "LOGISTIC int16 calibrated scale [1,1,1,128]": dict(op="LOGISTIC", dtype="int16", shape=(1, 1, 1, 128),
                                                        in_quant=(4.1e-4, 0), out_quant=(2 ** -15, 0)),
    "TANH int16 LSTM cell [1,256]": dict(op="TANH", dtype="int16", shape=(1, 256), in_quant=(2 ** -11, 0),
                                         out_quant=(2 ** -15, 0)),
    "TANH int16 calibrated scale [1,8,8,16]": dict(op="TANH", dtype="int16", shape=(1, 8, 8, 16), in_quant=(7e-4, 0),
                                                   out_quant=(2 ** -15, 0)),
}


@pytest.mark.parametrize("case", NAMED.values(), ids=NAMED.keys())
def test_named(case):
    case = {"dtype": "int8", **case}
    if case["dtype"] == "float32":
        _float_check(case["op"], case["shape"], 0)
    elif case["op"] == "RSQRT":
        rng = np.random.default_rng(0)
        top = 128 if case["dtype"] == "int8" else 32768
        x = rng.integers(case["in_quant"][1], top, case["shape"]).astype(case["dtype"])
        check(unary_math_model(**case), samples=[[x]])
    else:
        check(unary_math_model(**case))


def test_round_ties_go_to_even():
    x = (np.arange(-64, 64, dtype=np.float32) + np.float32(0.5)).reshape(1, 128)
    check_float(unary_math_model("ROUND", "float32", (1, 128)), [[x]], 0)


# -- what TFLite Micro refuses, and what would overflow ---------------------------------------------------

HOSTILE = {
    # TFLite Micro's Prepare (or Invoke) refuses these too
    "NEG int8": (dict(op="NEG", in_quant=(0.05, 0)), "supports ['float32'], got int8", True),
    "EXP int16": (dict(op="EXP", dtype="int16", in_quant=(1e-3, 0), out_quant=(1e-3, 0)), "got int16", True),
    "SQRT int8": (dict(op="SQRT", in_quant=(0.05, 0)), "supports ['float32'], got int8", True),
    "RSQRT int16 zero point": (dict(op="RSQRT", dtype="int16", in_quant=(1e-3, 0), out_quant=(1e-3, 2)),
                               "zero points of 0", True),
    "ABS int16 zero point": (dict(op="ABS", dtype="int16", in_quant=(1e-3, 3), out_quant=(1e-3, 0)),
                             "zero points of 0", True),
    "HARD_SWISH int8 output finer than input / 128": (dict(op="HARD_SWISH", in_quant=(0.05, 0),
                                                           out_quant=(1e-4, 0)), "non-positive output exponent", True),
    "LOGISTIC int16 zero point": (dict(op="LOGISTIC", dtype="int16", in_quant=(2 ** -12, 4), out_quant=(2 ** -15, 0)),
                                  "zero points of 0", True),
    "TANH int16 output scale 2^-14": (dict(op="TANH", dtype="int16", in_quant=(2 ** -12, 0), out_quant=(2 ** -14, 0)),
                                      "output scale 2^-15", True),
    # TFLite Micro would overflow int32 (undefined behaviour) or shift by 32 or more
    "LOGISTIC int16 input scale 10": (dict(op="LOGISTIC", dtype="int16", in_quant=(10.0, 0), out_quant=(2 ** -15, 0)),
                                      "input multiplier 122880", False),
    "TANH int16 input scale 1e-15": (dict(op="TANH", dtype="int16", in_quant=(1e-15, 0), out_quant=(2 ** -15, 0)),
                                     "input multiplier 0", False),
    "RSQRT int8 tiny output scale": (dict(op="RSQRT", in_quant=(0.05, 0), out_quant=(3e-9, 0)), "allowed -31..10",
                                     False),
    "RSQRT int8 huge output scale": (dict(op="RSQRT", in_quant=(0.05, 0), out_quant=(1e7, 0)), "allowed -31..10",
                                     False),
    "ELU int8 output scale 1e-15": (dict(op="ELU", in_quant=(0.5, 0), out_quant=(1e-15, 0)), "overflow int32", False),
    "ELU int8 NaN input scale": (dict(op="ELU", in_quant=(float("nan"), 0)), "not a finite positive", False),
    "HARD_SWISH int8 denormal output scale": (dict(op="HARD_SWISH", out_quant=(1e-40, 0)), "not a finite positive",
                                              False),
    "ABS int8 zero input scale": (dict(op="ABS", in_quant=(0.0, 0)), "not a finite positive", False),
    "ABS int8 rescale 1e12": (dict(op="ABS", in_quant=(1.0, 0), out_quant=(1e-12, 0)), "needs a shift of", False),
}


@pytest.mark.parametrize("case, message, tflm_refuses", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_parameters_are_refused_in_one_line(case, message, tflm_refuses):
    from micro_relay.compiler import compile_graph

    case = {"dtype": "int8", "shape": (1, 8), **case}
    model = unary_math_model(**case)
    with pytest.raises(CompileError) as info:
        compile_graph(run_pipeline(read_tflite(model, "hostile.tflite")), "m", "hostile.tflite")
    text = str(info.value)
    assert message in text and "\n" not in text, text
    if tflm_refuses:
        x = np.zeros(case["shape"], dtype=np.dtype(case["dtype"]))
        with pytest.raises(Exception):
            tflm_run(model, [x])


@pytest.mark.parametrize("op, inputs, outputs, message", [
    ("ABS", 2, 1, "expected 1..1 inputs, got 2"), ("GELU", 1, 2, "expected 1 output, got 2"),
    ("RSQRT", 0, 1, "expected 1..1 inputs, got 0")])
def test_converters_refuse_other_arities(op, inputs, outputs, message):
    from micro_relay.frontend.tflite.writer import TFLiteBuilder

    b = TFLiteBuilder()
    x = b.tensor("x", (1, 4), "float32")
    ys = [b.tensor(f"y{i}", (1, 4), "float32") for i in range(outputs)]
    b.op(op, [x] * inputs, ys)
    with pytest.raises(CompileError) as info:
        read_tflite(b.inputs(x).outputs(*ys).build(), "arity.tflite")
    assert message in str(info.value) and "\n" not in str(info.value)


def test_gelu_int8_is_refused():
    """TFLite Micro has no GELU kernel at all (float32 GELU is compared with torch elsewhere)."""
    from micro_relay.compiler import compile_graph

    model = unary_math_model("GELU", "int8", (1, 8), in_quant=(0.05, 0), out_quant=(0.05, 0))
    with pytest.raises(CompileError, match=r"supports \['float32'\], got int8"):
        compile_graph(run_pipeline(read_tflite(model, "gelu.tflite")), "m", "gelu.tflite")


def test_rsqrt_int8_below_zero_point_fails_at_invoke(tmp_path):
    """TFLite Micro's RSQRT fails its Invoke on a value below the zero point; the kernel returns MR_ERR_DOMAIN."""
    import subprocess

    from micro_relay.compiler import compile_graph, write_output
    from support.c_harness import STRICT_FLAGS

    model = unary_math_model("RSQRT", "int8", (1, 4), in_quant=(0.05, 10), out_quant=(0.05, 0))
    x = np.array([[20, 15, 9, 30]], dtype=np.int8)
    with pytest.raises(Exception):
        tflm_run(model, [x])
    write_output(compile_graph(run_pipeline(read_tflite(model, "r.tflite")), "m", "r.tflite"), tmp_path)
    (tmp_path / "main.c").write_text(
        '#include <string.h>\n#include "m.h"\nint main(void) {\n    const signed char x[4] = {20, 15, 9, 30};\n'
        '    memcpy(m_input(0), x, 4);\n    return m_invoke() == MR_ERR_DOMAIN ? 0 : 1;\n}\n')
    exe = tmp_path / "program"
    subprocess.run(["gcc", *STRICT_FLAGS, "-I", str(tmp_path), *map(str, sorted(tmp_path.glob("*.c"))), "-o", str(exe),
                    "-lm"], check=True)
    assert subprocess.run([str(exe)]).returncode == 0


def test_sigmoid_table_in_the_runtime_is_the_generated_one():
    """crt/src/mr_sigmoid_table.c is what ops/_logistic16.py generates (the int16 tests above check its values
    against TFLite Micro's on every input)."""
    from micro_relay.ops._logistic16 import table_c_source

    assert (ROOT / "crt" / "src" / "mr_sigmoid_table.c").read_text() == table_c_source()


# -- on a Cortex-M4 under QEMU ---------------------------------------------------------------------------

def test_kernels_are_bit_exact_on_cortex_m4(arm_tools, tmp_path):
    """The int16 table interpolation and rescale, the int8 tables and IEEE float rounding on the target's own
    compiler and libm (TFLite Micro on the host as the oracle): 512 random inputs each."""
    from support.cortex_m_cases import assert_bit_exact, bench_cases

    models = {
        "sigmoid16_case": unary_math_model("LOGISTIC", "int16", (1, 512), in_quant=(4.1e-4, 0),
                                           out_quant=(2 ** -15, 0)),
        "tanh16_case": unary_math_model("TANH", "int16", (1, 512), in_quant=(2 ** -11, 0), out_quant=(2 ** -15, 0)),
        "abs16_case": unary_math_model("ABS", "int16", (1, 512), in_quant=(3e-4, 0), out_quant=(2e-4, 0)),
        "rsqrt8_case": unary_math_model("RSQRT", "int8", (1, 512), in_quant=(0.02, -128), out_quant=(0.06, -128)),
        "hard_swish8_case": unary_math_model("HARD_SWISH", "int8", (1, 512), in_quant=(0.06, -5),
                                             out_quant=(0.04, -110)),
        "round_f32_case": unary_math_model("ROUND", "float32", (1, 512)),
    }
    for result in bench_cases(tmp_path, models).values():
        assert_bit_exact(result)
