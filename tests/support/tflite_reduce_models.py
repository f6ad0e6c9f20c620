"""Single-op TFLite models of the reductions, L2_NORMALIZATION and the resizes, for the tests against
TFLite Micro (tests/ops/test_reduce_resize_vs_tflm.py). Builders take readable parameters with defaults and
return model bytes; they only make models TFLite Micro's Prepare accepts unless a test says otherwise."""

from __future__ import annotations

import numpy as np

from micro_relay.frontend.tflite.writer import TFLiteBuilder


def _quant(dtype: str, quant) -> dict:
    return {} if dtype == "float32" or quant is None else {"scale": quant[0], "zero_point": quant[1]}


def reduced_shape(shape, axes, keep_dims: bool) -> tuple[int, ...]:
    rank = len(shape)
    reduced = {a % rank for a in axes}
    if keep_dims:
        return tuple(1 if i in reduced else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in reduced)


def reduce_model(op="SUM", dtype="int8", shape=(1, 4, 4, 8), axes=(1, 2), keep_dims=True, in_quant=(0.05, 0),
                 out_quant=None, scalar_axis=False) -> bytes:
    """SUM / REDUCE_MAX / REDUCE_MIN / REDUCE_PROD over constant int32 axes (negative ones allowed);
    the output quantization defaults to the input's. `scalar_axis` stores one axis as a 0-D tensor."""
    out_quant = in_quant if out_quant is None else out_quant
    b = TFLiteBuilder()
    x = b.tensor("input", shape, dtype, **_quant(dtype, in_quant))
    a = b.tensor("axis", () if scalar_axis else (len(axes),), "int32", data=axes)
    y = b.tensor("output", reduced_shape(shape, axes, keep_dims), dtype, **_quant(dtype, out_quant))
    b.op(op, [x, a], [y], keep_dims=keep_dims)
    return b.inputs(x).outputs(y).build()


def arg_model(op="ARG_MAX", dtype="int8", shape=(1, 12), axis=-1, index="int32", axis_dtype="int32",
              quant=(0.05, 0)) -> bytes:
    """ARG_MAX / ARG_MIN along a constant axis, int32 or int64 indices."""
    rank = len(shape)
    out_shape = tuple(d for i, d in enumerate(shape) if i != axis % rank)
    b = TFLiteBuilder()
    x = b.tensor("input", shape, dtype, **_quant(dtype, quant))
    a = b.tensor("axis", (1,), axis_dtype, data=[axis])
    y = b.tensor("output", out_shape, index)
    b.op(op, [x, a], [y], output_type=index)
    return b.inputs(x).outputs(y).build()


def resize_model(op="RESIZE_BILINEAR", dtype="int8", shape=(1, 12, 12, 32), size=(24, 24), align_corners=False,
                 half_pixel_centers=False, quant=(0.05, 0)) -> bytes:
    """RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR to a constant size, quantization unchanged."""
    n, _, _, c = shape
    b = TFLiteBuilder()
    x = b.tensor("input", shape, dtype, **_quant(dtype, quant))
    s = b.tensor("size", (2,), "int32", data=size)
    y = b.tensor("output", (n, size[0], size[1], c), dtype, **_quant(dtype, quant))
    b.op(op, [x, s], [y], align_corners=align_corners, half_pixel_centers=half_pixel_centers)
    return b.inputs(x).outputs(y).build()


def l2norm_model(dtype="int8", shape=(1, 8), in_quant=(0.05, 0)) -> bytes:
    """L2_NORMALIZATION along the last axis; int8 output in TFLite's fixed scale 1/128, zero point 0."""
    b = TFLiteBuilder()
    x = b.tensor("input", shape, dtype, **_quant(dtype, in_quant))
    y = b.tensor("output", shape, dtype, **_quant(dtype, (1 / 128, 0)))
    b.op("L2_NORMALIZATION", [x], [y])
    return b.inputs(x).outputs(y).build()


def compiled_outputs(model: bytes, samples, out_dir) -> list[list[np.ndarray]]:
    """Compiled C's outputs, for the cases TFLite Micro has no kernel for (tests then compare with numpy)."""
    from micro_relay.frontend.tflite import read_tflite
    from micro_relay.passes import run_pipeline

    from .c_harness import compile_and_run

    return compile_and_run(run_pipeline(read_tflite(model, "test model")), samples, out_dir)
