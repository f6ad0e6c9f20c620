"""Calibration files: the accepted format, and one clear one-line error for each way it can be wrong."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from micro_relay.errors import CompileError
from micro_relay.quantize.calibration_data import check_calibration, load_calibration

from .graphs import Builder, residual


def two_inputs():
    """a[1,4] ─┐
       b[1,4] ─ add ─► sum"""
    b = Builder()
    x, y = b.input("a", (1, 4)), b.input("b", (1, 4))
    return b.graph(b.op("add", (x, y), "sum"))


def fails(match: str, path_or_arrays, graph):
    with pytest.raises(CompileError) as info:
        if isinstance(path_or_arrays, dict):
            check_calibration(path_or_arrays, graph)
        else:
            load_calibration(path_or_arrays, graph)
    assert match in str(info.value), str(info.value)
    assert "\n" not in str(info.value)
    return str(info.value)


def test_npz_keyed_by_input_name(tmp_path):
    graph = two_inputs()
    a = np.arange(12, dtype=np.float64).reshape(3, 1, 4)
    np.savez(tmp_path / "cal.npz", a=a, b=-a.astype(np.float32))
    samples = load_calibration(tmp_path / "cal.npz", graph)
    assert len(samples) == 3 and all(len(s) == 2 for s in samples)
    assert samples[1][0].dtype == np.float32 and samples[1][0].shape == (1, 4)
    np.testing.assert_array_equal(samples[2][1], -a[2])


def test_bare_npy_for_a_single_input(tmp_path):
    graph = residual()
    np.save(tmp_path / "cal.npy", np.zeros((2, 1, 8, 8, 4), np.float32))
    assert len(load_calibration(tmp_path / "cal.npy", graph)) == 2
    np.save(tmp_path / "two.npy", np.zeros((2, 1, 4), np.float32))
    fails("a bare .npy holds one array but the model has 2 inputs", tmp_path / "two.npy", two_inputs())


def test_missing_and_unknown_keys(tmp_path):
    graph = two_inputs()
    np.savez(tmp_path / "cal.npz", a=np.zeros((2, 1, 4)))
    fails("no array for input 'b'", tmp_path / "cal.npz", graph)
    fails("calibration array 'c' names no model input", {"a": np.zeros((2, 1, 4)), "b": np.zeros((2, 1, 4)),
                                                         "c": np.zeros((2, 1, 4))}, graph)


def test_shape_without_batch_dimension_is_refused():
    message = fails("has shape (5, 8, 8, 4); expected (N, 1, 8, 8, 4)", {"x": np.zeros((5, 8, 8, 4))}, residual())
    assert "batch dimension included" in message


def test_wrong_dtype_empty_and_unequal_counts():
    graph = two_inputs()
    fails("calibration array 'a' has dtype int64; expected float32 or float64",
          {"a": np.zeros((2, 1, 4), np.int64), "b": np.zeros((2, 1, 4))}, graph)
    fails("calibration set is empty", {"a": np.zeros((0, 1, 4)), "b": np.zeros((0, 1, 4))}, graph)
    fails("'b' holds 3 samples but 'a' holds 2", {"a": np.zeros((2, 1, 4)), "b": np.zeros((3, 1, 4))}, graph)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nan_or_inf_names_input_and_sample(bad):
    b = np.zeros((4, 1, 4))
    b[2, 0, 1] = bad
    fails("calibration array 'b' sample 2 holds NaN or inf", {"a": np.zeros((4, 1, 4)), "b": b}, two_inputs())


def test_unreadable_files(tmp_path):
    graph = residual()
    fails("calibration file not found", tmp_path / "nope.npz", graph)
    (tmp_path / "junk.npz").write_bytes(b"not numpy at all")
    fails("cannot read calibration data", tmp_path / "junk.npz", graph)
    np.save(tmp_path / "objects.npy", np.array([{"x": 1}], dtype=object), allow_pickle=True)
    fails("cannot read calibration data", tmp_path / "objects.npy", graph)


def nhwc_input_of_an_nchw_model():
    """x (model: NCHW (1, 3, 4, 5); compiled: NHWC (1, 4, 5, 3)) ─ relu ─► y"""
    b = Builder()
    graph = b.graph(b.op("nn.relu", (b.input("x", (1, 4, 5, 3)),), "y"))
    tensors = dict(graph.tensors)
    tensors["x"] = replace(tensors["x"], source_axes=(0, 2, 3, 1))
    return replace(graph, tensors=tensors)


def test_samples_in_the_models_nchw_layout_are_transposed_to_the_compiled_one(tmp_path):
    graph = nhwc_input_of_an_nchw_model()
    assert graph.tensors["x"].source_shape == (1, 3, 4, 5)
    nchw = np.random.default_rng(1).standard_normal((3, 1, 3, 4, 5))
    np.savez(tmp_path / "cal.npz", x=nchw)
    for samples in (load_calibration(tmp_path / "cal.npz", graph), check_calibration([nchw], graph)):
        assert len(samples) == 3
        for sample, x in zip(samples, nchw):
            assert sample[0].shape == (1, 4, 5, 3) and sample[0].flags.c_contiguous
            np.testing.assert_array_equal(sample[0], np.transpose(x, (0, 2, 3, 1)).astype(np.float32))


def test_samples_in_the_compiled_layout_are_refused_naming_both_shapes():
    message = fails("calibration array 'x' has shape (3, 1, 4, 5, 3); expected (N, 1, 3, 4, 5) (the model's own "
                    "layout, NCHW; the compiled input is (1, 4, 5, 3)", {"x": np.zeros((3, 1, 4, 5, 3))},
                    nhwc_input_of_an_nchw_model())
    assert message.endswith("give them as the model takes them (calibration data)")
