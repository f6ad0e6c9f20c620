"""LOG_SOFTMAX against TFLite Micro: compiled C and the reference interpreter, int8 bit for bit and float32
within one ulp (the compiled C calls the same expf/logf as TFLite Micro and measured 0 ulps apart; the
reference rounds the double functions once and measured at most 1).

int8 models draw the input scale over the range TFLite Micro accepts (in_s * 2^26 > 1) and any input zero
point; the output quantization is the one TFLite Micro fixes (16/256, 127). Inputs are uniform int8 values
plus rows that reach the edges: all equal (every exp is 1), one-hot (all but one difference at -255, past
diff_min for most scales), two values only. Whatever TFLite Micro refuses is a one-line CompileError.
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import ROOT
from micro_relay.compiler import compile_graph
from micro_relay.errors import CompileError
from micro_relay.frontend.tflite import read_tflite
from micro_relay.passes import run_pipeline
from support.tflite_log_softmax_models import log_softmax_model
from support.tflite_models import SEEDS, check, log_uniform, zero_points
from support.tflite_unary_models import SPECIALS, check_float
from support.tflm_oracle import tflm_run

SHAPES = st.sampled_from([(1, 12), (1, 1000), (2, 5, 10), (3, 7), (1, 1, 1, 10), (4, 1)])
IN_SCALES = log_uniform(2.0 ** -25, 20.0)  # from just above TFLite Micro's lower limit 2^-26 to huge


def edge_rows(shape, rng: np.random.Generator) -> np.ndarray:
    """Rows of the kinds listed in the module docstring, cycled over the rows of `shape`."""
    depth = shape[-1]
    rows = int(np.prod(shape)) // depth
    out = np.empty((rows, depth), dtype=np.int64)
    for r in range(rows):
        kind = r % 4
        if kind == 0:
            out[r] = rng.integers(-128, 128)
        elif kind == 1:
            out[r] = -128
            out[r, rng.integers(depth)] = 127
        elif kind == 2:
            out[r] = rng.choice([rng.integers(-128, 128), rng.integers(-128, 128)], depth)
        else:
            out[r] = rng.integers(-128, 128, depth)
    return out.astype(np.int8).reshape(shape)


def int8_check(shape, scale: float, zero_point: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    samples = [[rng.integers(-128, 128, shape).astype(np.int8)], [edge_rows(shape, rng)]]
    check(log_softmax_model("int8", shape, (scale, zero_point)), samples=samples)


@given(shape=SHAPES, scale=IN_SCALES, zero_point=zero_points("int8"), seed=SEEDS)
def test_int8_matches_tflm(shape, scale, zero_point, seed):
    int8_check(shape, scale, zero_point, seed)


NAMED_INT8 = {
    "kws_12_scores": ((1, 12), 0.1, -20),
    "kws_12_scores_wide": ((1, 12), 0.5, 0),
    "imagenet_1000_logits": ((1, 1000), 0.12, -10),
    "imagenet_1001_fine": ((1, 1001), 0.02, 5),
    "batch_2x5x10": ((2, 5, 10), 0.06, 3),
    "pooled_1280": ((1, 1, 1, 1280), 0.03, -128),
    "kws_features_49x10": ((1, 49, 10), 0.25, 12),
    "longest_row_4095": ((1, 4095), 0.05, 0),
    "depth_one": ((6, 1), 0.1, 0),
    "scale_near_lower_limit": ((1, 12), 2.0 ** -26 * 1.001, 0),
    "scale_huge": ((1, 12), 1000.0, 0),
    "scale_power_of_two": ((1, 12), 0.125, 0),
}


@pytest.mark.parametrize("shape, scale, zero_point", NAMED_INT8.values(), ids=NAMED_INT8.keys())
def test_int8_named_cases(shape, scale, zero_point):
    int8_check(shape, scale, zero_point)


@given(shape=SHAPES, spread=log_uniform(0.01, 200.0), seed=SEEDS)
def test_float32_matches_tflm(shape, spread, seed):
    x = (np.random.default_rng(seed).standard_normal(shape) * spread).astype(np.float32)
    check_float(log_softmax_model("float32", shape), [[x]], 1)


def test_float32_special_values_match_tflm():
    """NaN, infinities, huge and tiny values, each row holding a few (a NaN or +inf row turns to NaN)."""
    rows = np.resize(SPECIALS, (5, 4)).astype(np.float32)
    check_float(log_softmax_model("float32", (5, 4)), [[rows], [-np.abs(rows)]], 1)


def _compile(model: bytes) -> None:
    compile_graph(run_pipeline(read_tflite(model, "model")), "model", "model")


REFUSED_BY_TFLM = {
    "output_scale_1_over_256": (dict(out_quant=(1.0 / 256, 127)), "scale 16/256 and zero point 127"),
    "output_zero_point_0": (dict(out_quant=(16.0 / 256, 0)), "scale 16/256 and zero point 127"),
}
HOSTILE = {
    **REFUSED_BY_TFLM,
    "input_scale_below_2^-26": (dict(in_quant=(2.0 ** -27, 0)), "input scale .* out of range"),
    "input_scale_exactly_2^-26": (dict(in_quant=(2.0 ** -26, 0)), "input scale .* out of range"),
    "input_scale_zero": (dict(in_quant=(0.0, 0)), "scale"),
    "input_scale_nan": (dict(in_quant=(float("nan"), 0)), "scale"),
    "input_scale_denormal": (dict(in_quant=(1e-40, 0)), "scale"),
    "row_of_4096": (dict(shape=(1, 4096)), "overflows above 4095"),
}


@pytest.mark.parametrize("options, message", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_parameters_are_one_line_compile_errors(options, message):
    with pytest.raises(CompileError, match=message) as error:
        _compile(log_softmax_model("int8", **options))
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("options", [v[0] for v in REFUSED_BY_TFLM.values()], ids=REFUSED_BY_TFLM.keys())
def test_tflm_refuses_what_we_refuse(options):
    model = log_softmax_model("int8", (1, 12), **options)
    with pytest.raises(RuntimeError, match="failed to allocate"):
        tflm_run(model, [np.zeros((1, 12), np.int8)])


def test_mixed_types_are_refused():
    from micro_relay.frontend.tflite.writer import TFLiteBuilder

    b = TFLiteBuilder()
    x = b.tensor("input", (1, 12), "int8", scale=0.1, zero_point=0)
    y = b.tensor("output", (1, 12), "float32")
    b.op("LOG_SOFTMAX", [x], [y])
    with pytest.raises(CompileError, match="float32 and int8") as error:
        _compile(b.inputs(x).outputs(y).build())
    assert "\n" not in str(error.value)


STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-Wconversion", "-Wsign-conversion",
          "-Wshadow", "-Wcast-qual", "-Wstrict-prototypes", "-Wmissing-prototypes"]


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_kernel_builds_warning_free(cc, tmp_path):
    if shutil.which(cc) is None:
        pytest.skip(f"{cc} is not installed")
    for level in ("-O0", "-O1", "-O2", "-Os"):
        cmd = [cc, *STRICT, level, "-I", str(ROOT / "crt" / "include"), "-c",
               str(ROOT / "crt" / "src" / "mr_log_softmax.c"), "-o", str(tmp_path / "x.o")]
        result = subprocess.run(cmd, capture_output=True, text=True)
        assert result.returncode == 0, f"{' '.join(cmd)}\n{result.stderr}"


def test_int8_is_bit_exact_on_cortex_m4(arm_tools, tmp_path):
    """The fixed-point exp, log and rescales under the target's compiler (TFLite Micro on the host as oracle)."""
    from support.cortex_m_cases import assert_bit_exact, bench_cases

    models = {
        "log_softmax_kws": log_softmax_model("int8", (1, 12), (0.1, -20)),
        "log_softmax_imagenet": log_softmax_model("int8", (1, 1000), (0.12, -10)),
        "log_softmax_batch": log_softmax_model("int8", (2, 5, 10), (0.5, 3)),
    }
    for result in bench_cases(tmp_path, models).values():
        assert_bit_exact(result)
