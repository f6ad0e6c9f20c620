"""Calibration samples: read and check them before anything runs.

The format (one rule, no guessing): an .npz holds one array per graph input, keyed by the input's name; a
single-input model may instead take a bare .npy. Each array has shape (N, *model_input_shape): N samples,
each of the shape the original model takes, batch dimension included (for an input (1, 8, 8, 1): (N, 1, 8,
8, 1)). For an NCHW ONNX or PyTorch model that is NCHW, whatever --io-layout says: a user's data pipeline
feeds the model, not the compiled layout. Where the compiled input is NHWC, the samples are transposed here
(the input tensor's `source_axes` records the model's layout). Every input has the same N >= 1; values are
float32 or float64 (cast to float32) and finite. Anything else is a one-line CompileError that names the
input (for a wrong shape, the given and the expected one; for bad values, the sample index). Files are read
by array_files.py, which checks every header's size against the file before allocating anything.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from ..array_files import load_arrays
from ..errors import CompileError
from ..ir.graph import Graph, Tensor

ACCEPTED_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def load_calibration(path: str | Path, graph: Graph) -> list[list[np.ndarray]]:
    """Samples from an .npz/.npy file: a list of N samples, each a list of one array per graph input."""
    where = str(path)
    loaded = load_arrays(path, "calibration")
    if isinstance(loaded, np.ndarray):
        if len(graph.inputs) != 1:
            raise CompileError(f"a bare .npy holds one array but the model has {len(graph.inputs)} inputs "
                               f"({', '.join(repr(n) for n in graph.inputs)}); use an .npz keyed by input name", where)
        loaded = {graph.inputs[0]: loaded}
    return check_calibration(loaded, graph, where)


def check_calibration(arrays: Mapping[str, np.ndarray] | Sequence[np.ndarray], graph: Graph,
                      where: str = "calibration data") -> list[list[np.ndarray]]:
    """Check arrays keyed by input name (or listed in input order) and split them into samples."""
    if not isinstance(arrays, Mapping):
        arrays = list(arrays)
        if len(arrays) != len(graph.inputs):
            raise CompileError(f"calibration data has {len(arrays)} arrays but the model has "
                               f"{len(graph.inputs)} inputs", where)
        arrays = dict(zip(graph.inputs, arrays))
    missing = [n for n in graph.inputs if n not in arrays]
    if missing:
        raise CompileError(f"calibration data has no array for input '{missing[0]}' (keys: "
                           f"{', '.join(repr(k) for k in arrays) or 'none'})", where)
    extra = [k for k in arrays if k not in graph.inputs]
    if extra:
        raise CompileError(f"calibration array '{extra[0]}' names no model input (inputs: "
                           f"{', '.join(repr(n) for n in graph.inputs)})", where)
    checked: dict[str, np.ndarray] = {}
    count = None
    for name in graph.inputs:
        tensor = graph.tensors[name]
        array = np.asarray(arrays[name])
        if array.dtype not in ACCEPTED_DTYPES:
            raise CompileError(f"calibration array '{name}' has dtype {array.dtype}; expected float32 or float64",
                               where)
        _check_shape(name, tensor, array, where)
        if array.shape[0] == 0:
            raise CompileError(f"calibration set is empty (array '{name}' holds 0 samples)", where)
        if count is not None and array.shape[0] != count:
            raise CompileError(f"calibration array '{name}' holds {array.shape[0]} samples but "
                               f"'{graph.inputs[0]}' holds {count}", where)
        count = array.shape[0]
        finite = np.isfinite(array.reshape(count, -1)).all(axis=1)
        if not finite.all():
            raise CompileError(f"calibration array '{name}' sample {int(np.argmin(finite))} holds NaN or inf", where)
        if tensor.source_axes is not None:  # the model's layout -> the compiled one
            array = np.transpose(array, (0, *(axis + 1 for axis in tensor.source_axes)))
        checked[name] = np.ascontiguousarray(array, dtype=np.float32)
    if count is None:
        raise CompileError("the model has no inputs to calibrate", where)
    return [[checked[name][i] for name in graph.inputs] for i in range(count)]


def _shape_text(shape) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ")"


def _check_shape(name: str, tensor: Tensor, array: np.ndarray, where: str) -> None:
    """(N, *the model's input shape), in the model's own layout; the error names both shapes."""
    model_shape = tensor.source_shape
    if array.ndim == len(model_shape) + 1 and tuple(array.shape[1:]) == model_shape:
        return
    layout = ""
    if tensor.source_axes is not None:
        layout = (f" (the model's own layout, NCHW; the compiled input is {_shape_text(tensor.type.shape)}, "
                  f"transposed internally)")
    hint = ""
    if tensor.source_axes is not None and tuple(array.shape[1:]) == tensor.type.shape:
        hint = "; these samples are in the compiled NHWC layout, give them as the model takes them"
    expected = "(N, " + ", ".join(str(d) for d in model_shape) + ")"
    raise CompileError(f"calibration array '{name}' has shape {_shape_text(array.shape)}; expected {expected}"
                       f"{layout}: N samples of the shape the model takes, batch dimension included{hint}", where)
