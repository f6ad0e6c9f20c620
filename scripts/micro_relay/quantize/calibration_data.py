"""Calibration samples: read and check them before anything runs.

The format (one rule, no guessing): an .npz holds one array per graph input, keyed by the input's name; a
single-input model may instead take a bare .npy. Each array has shape (N, *input_shape): N samples, each of
the input's full shape, batch dimension included (for an input (1, 8, 8, 1): (N, 1, 8, 8, 1)). Every input
has the same N >= 1; values are float32 or float64 (cast to float32) and finite. Anything else is a
one-line CompileError that names the input, and for bad values the sample index.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from ..errors import CompileError
from ..ir.graph import Graph

ACCEPTED_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def load_calibration(path: str | Path, graph: Graph) -> list[list[np.ndarray]]:
    """Samples from an .npz/.npy file: a list of N samples, each a list of one array per graph input."""
    path = Path(path)
    where = str(path)
    try:
        loaded = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise CompileError("calibration file not found", where) from None
    except IsADirectoryError:
        raise CompileError("calibration path is a directory", where) from None
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise CompileError(f"cannot read calibration data as .npy or .npz: {exc}", where) from None
    if isinstance(loaded, np.ndarray):
        if len(graph.inputs) != 1:
            raise CompileError(f"a bare .npy holds one array but the model has {len(graph.inputs)} inputs "
                               f"({', '.join(repr(n) for n in graph.inputs)}); use an .npz keyed by input name", where)
        arrays = {graph.inputs[0]: loaded}
    else:
        with loaded:
            try:
                arrays = {key: loaded[key] for key in loaded.files}
            except ValueError as exc:
                raise CompileError(f"cannot read calibration data: {exc}", where) from None
    return check_calibration(arrays, graph, where)


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
        t = graph.type_of(name)
        array = np.asarray(arrays[name])
        if array.dtype not in ACCEPTED_DTYPES:
            raise CompileError(f"calibration array '{name}' has dtype {array.dtype}; expected float32 or float64",
                               where)
        if array.ndim != t.rank + 1 or tuple(array.shape[1:]) != t.shape:
            expected = "(N, " + ", ".join(str(d) for d in t.shape) + ")"
            hint = ""
            if t.rank == 4 and tuple(array.shape[1:]) == (t.shape[0], t.shape[3], t.shape[1], t.shape[2]):
                hint = " (the compiled input is NHWC; give NHWC samples, or compile with --io-layout nchw)"
            raise CompileError(f"calibration array '{name}' has shape {tuple(array.shape)}; expected {expected}: "
                               f"N samples of the input's full shape, batch dimension included{hint}", where)
        if array.shape[0] == 0:
            raise CompileError(f"calibration set is empty (array '{name}' holds 0 samples)", where)
        if count is not None and array.shape[0] != count:
            raise CompileError(f"calibration array '{name}' holds {array.shape[0]} samples but "
                               f"'{graph.inputs[0]}' holds {count}", where)
        count = array.shape[0]
        finite = np.isfinite(array.reshape(count, -1)).all(axis=1)
        if not finite.all():
            raise CompileError(f"calibration array '{name}' sample {int(np.argmin(finite))} holds NaN or inf", where)
        checked[name] = array.astype(np.float32)
    if count is None:
        raise CompileError("the model has no inputs to calibrate", where)
    return [[checked[name][i] for name in graph.inputs] for i in range(count)]
