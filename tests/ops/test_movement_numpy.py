"""Data-movement ops where TFLite Micro is no oracle: TILE (it has no kernel) and element types its kernels
refuse but other models carry (int32 / bool / uint32 copies, int64 gather positions as ONNX writes them,
int16 gathers and mirror pads). The oracle is numpy's own definition of each op (np.tile, np.take,
np.transpose, np.pad), run on the same inputs as the compiled C and the reference interpreter.

Also: runtime positions outside their axis stop the model as TFLite Micro's invoke fails, hostile
parameters are one-line CompileErrors, and the new runtime sources are warning-free under strict flags.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import tflite_movement_models as mm
from support.c_harness import compile_and_run
from support.tflm_oracle import tflm_run

from micro_relay.compiler import compile_graph
from micro_relay.errors import CompileError
from micro_relay.frontend.tflite import read_tflite
from micro_relay.frontend.tflite.writer import TFLiteBuilder
from micro_relay.passes import run_pipeline
from micro_relay.reference import run as reference_run

ROOT = Path(__file__).resolve().parents[2]
TYPES = ["int8", "int16", "int32", "uint32", "float32", "bool"]


def _random(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, shape, dtype=np.int64).astype(dtype)


def check_numpy(model: bytes, oracle, samples):
    """Compiled C and reference interpreter outputs equal oracle(*sample) exactly."""
    graph = run_pipeline(read_tflite(model, "test model"))
    with tempfile.TemporaryDirectory() as tmp:
        compiled = compile_and_run(graph, samples, Path(tmp))
    for sample, ours in zip(samples, compiled):
        expected = oracle(*sample)
        np.testing.assert_array_equal(ours[0], expected, err_msg="compiled C vs numpy")
        np.testing.assert_array_equal(reference_run(graph, [x.copy() for x in sample])[0], expected,
                                      err_msg="reference vs numpy")


@given(dtype=st.sampled_from(TYPES), shape=st.lists(st.integers(1, 4), min_size=1, max_size=4),
       data=st.data())
def test_tile_matches_numpy(dtype, shape, data):
    reps = tuple(data.draw(st.integers(1, 3)) for _ in shape)
    model = mm.tile_model(dtype, tuple(shape), reps, None)
    rng = np.random.default_rng(0)
    check_numpy(model, lambda x: np.tile(x, reps), [[_random(rng, shape, dtype)] for _ in range(2)])


TILE_NAMED = {
    "pooled vector to a row of 4 [1,1,1,1280]": ((1, 1, 1, 1280), (1, 1, 4, 1), "int8"),
    "KWS features twice in time [1,49,10,1]": ((1, 49, 10, 1), (1, 2, 1, 1), "float32"),
    "every axis of 4 repeated (8 view axes merge to 6)": ((2, 2, 2, 3), (2, 3, 2, 1), "int16"),
    "7 view axes: a C loop around the kernel": ((2, 2, 2, 1), (2, 2, 2, 2), "float32"),
    "10 view axes of a 5-D tile": ((2, 3, 2, 3, 2), (2, 2, 3, 2, 2), "int8"),
}


@pytest.mark.parametrize("shape, reps, dtype", TILE_NAMED.values(), ids=TILE_NAMED.keys())
def test_tile_named(shape, reps, dtype):
    rng = np.random.default_rng(1)
    check_numpy(mm.tile_model(dtype, shape, reps, None), lambda x: np.tile(x, reps), [[_random(rng, shape, dtype)]])


@pytest.mark.parametrize("dtype", ["int32", "bool", "uint32"])
def test_transpose_and_broadcast_of_types_tflm_refuses(dtype):
    rng = np.random.default_rng(2)
    check_numpy(mm.transpose_model(dtype, (2, 3, 4), (1, 2, 0), None), lambda x: np.transpose(x, (1, 2, 0)),
                [[_random(rng, (2, 3, 4), dtype)]])
    check_numpy(mm.broadcast_to_model(dtype, (3, 1), (2, 3, 5), None), lambda x: np.broadcast_to(x, (2, 3, 5)),
                [[_random(rng, (3, 1), dtype)]])


@pytest.mark.parametrize("dtype, index", [("int16", "int64"), ("int32", "int64"), ("float32", "int64"),
                                          ("int16", "int32")])
def test_gather_with_types_tflm_refuses(dtype, index):
    """ONNX Gather writes int64 positions; int16 / int32 tables are gathered the same way."""
    b = TFLiteBuilder()
    x = b.tensor("x", (6, 4), dtype)
    i = b.tensor("i", (2, 3), index)
    y = b.tensor("y", (6, 2, 3), dtype)
    model = b.op("GATHER", [x, i], [y], axis=1).inputs(x, i).outputs(y).build()
    rng = np.random.default_rng(3)
    samples = [[_random(rng, (6, 4), dtype), rng.integers(0, 4, (2, 3)).astype(index)] for _ in range(2)]
    check_numpy(model, lambda t, p: np.take(t, p, axis=1), samples)


def test_gather_nd_int64_positions_and_int16_mirror_pad():
    b = TFLiteBuilder()
    x = b.tensor("x", (4, 5, 2), "int16")
    i = b.tensor("i", (3, 2), "int64")
    y = b.tensor("y", (3, 2), "int16")
    model = b.op("GATHER_ND", [x, i], [y]).inputs(x, i).outputs(y).build()
    rng = np.random.default_rng(4)
    positions = np.stack([rng.integers(0, 4, 3), rng.integers(0, 5, 3)], axis=1)
    check_numpy(model, lambda t, p: t[p[:, 0], p[:, 1]], [[_random(rng, (4, 5, 2), "int16"), positions]])
    pads = ((0, 0), (2, 1), (0, 3))
    check_numpy(mm.mirror_pad_model("int16", (1, 3, 4), pads, "SYMMETRIC", (1e-3, 0)),
                lambda t: np.pad(t, pads, mode="symmetric"), [[_random(rng, (1, 3, 4), "int16")]])


def test_runtime_position_outside_the_axis_stops_the_model_as_tflm_fails():
    model = mm.gather_model("float32", (5, 3), (2,), constant=False)
    graph = run_pipeline(read_tflite(model, "gather"))
    table = np.ones((5, 3), np.float32)
    for bad in ([0, 5], [-1, 0]):
        positions = np.array(bad, np.int32)
        with pytest.raises(RuntimeError):
            tflm_run(model, [table, positions])
        with tempfile.TemporaryDirectory() as tmp, pytest.raises(AssertionError, match="exited 3"):
            compile_and_run(graph, [[table, positions]], Path(tmp))  # MR_ERR_INDEX from NAME_invoke


HOSTILE = {
    "constant GATHER position out of range": (lambda: mm.gather_model(shape=(4, 2), indices=(1, 4)), "outside"),
    "MIRROR_PAD REFLECT wider than the axis": (
        lambda: mm.mirror_pad_model(shape=(1, 3, 3, 1), paddings=((0, 0), (3, 0), (0, 0), (0, 0))), "allows 0..2"),
    "SPACE_TO_BATCH padded size not a block multiple": (
        lambda: _raw_space_to_batch(), "not a multiple"),
    "SPLIT into unequal parts": (lambda: _raw_split(), "equal parts"),
    "TRANSPOSE changes the quantization": (lambda: _requantizing_transpose(), "differ in type or quantization"),
    "SPLIT axis holding two values": (
        lambda: mm.single_op("SPLIT", "int8", (2, 4), [(2, 2), (2, 2)], [("first:axis", [1, 1])], num_splits=2),
        "must hold one value"),
    "TRANSPOSE perm entry out of range": (
        lambda: mm.single_op("TRANSPOSE", "int8", (2, 3), [(3, 2)], [("perm", [1, 2])]), "outside"),
    "GATHER axis out of range": (lambda: mm.single_op("GATHER", "int8", (4, 2), [(2, 2)],
                                                      [("indices", [0, 1])], axis=5), "outside"),
    "SPACE_TO_BATCH padding near 2^31": (
        lambda: mm.single_op("SPACE_TO_BATCH_ND", "int8", (1, 4, 4, 1), [(4, 2, 2, 1)],
                             [("block", [2, 2]), ("paddings", [[0, 2 ** 31 - 2], [0, 0]])]), "int32"),
    "DEPTH_TO_SPACE channels not a block square": (
        lambda: mm.single_op("DEPTH_TO_SPACE", "int8", (1, 2, 2, 6), [(1, 4, 4, 1)], block_size=2),
        "divisible by block_size"),
}


def _raw_space_to_batch():
    return mm.single_op("SPACE_TO_BATCH_ND", "int8", (1, 5, 4, 1), [(4, 2, 2, 1)],
                        [("block", [2, 2]), ("paddings", np.zeros((2, 2), np.int32))])


def _raw_split():
    return mm.single_op("SPLIT", "int8", (1, 5), [(1, 2), (1, 2)], [("first:axis", [1])], num_splits=2)


def _requantizing_transpose():
    b = TFLiteBuilder()
    x = b.tensor("x", (2, 3), "int8", scale=0.5, zero_point=1)
    p = b.tensor("p", (2,), "int32", data=[1, 0])
    y = b.tensor("y", (3, 2), "int8", scale=0.25, zero_point=1)
    return b.op("TRANSPOSE", [x, p], [y]).inputs(x).outputs(y).build()


@pytest.mark.parametrize("build, message", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_parameters_are_one_line_compile_errors(build, message):
    with pytest.raises(CompileError, match=message) as error:
        compile_graph(run_pipeline(read_tflite(build(), "model")), "model", "model")
    assert "\n" not in str(error.value)


NEW_SOURCES = ["mr_gather.c", "mr_fill.c", "mr_cast.c", "mr_mirror_pad.c", "mr_space_batch.c"]
STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-Wconversion", "-Wsign-conversion",
          "-Wshadow", "-Wcast-qual", "-Wstrict-prototypes", "-Wmissing-prototypes"]


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_new_runtime_sources_build_warning_free(cc, tmp_path):
    import shutil

    if shutil.which(cc) is None:
        pytest.skip(f"{cc} is not installed")
    for level in ("-O0", "-O2", "-Os"):
        for source in NEW_SOURCES:
            cmd = [cc, *STRICT, level, "-I", str(ROOT / "crt" / "include"), "-c", str(ROOT / "crt" / "src" / source),
                   "-o", str(tmp_path / "x.o")]
            result = subprocess.run(cmd, capture_output=True, text=True)
            assert result.returncode == 0, f"{' '.join(cmd)}\n{result.stderr}"
