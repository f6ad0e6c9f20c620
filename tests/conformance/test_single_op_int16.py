"""The 127 single-op int16 models of TFLite Micro's integration tests against their golden CSVs.

Each model ships `<m>_input<i>_<dtype>.csv` files and a `<m>_golden_<dtype>.csv`; the compiled C and the
reference interpreter must reproduce the golden output exactly. TFLite Micro itself is off by one on
leaky_relu 3, 11, 18 and 19 (its own README says so); `TFLM_OFF_BY_ONE` lists them, and for those we
check against TFLite Micro's interpreter instead, and report the golden difference.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from conftest import SHARED_MODELS
from support.model_check import compare_with_tflm

SINGLE_OP = SHARED_MODELS / "tflite_micro" / "single_op_int16"
TFLM_OFF_BY_ONE = {"leaky_relu3", "leaky_relu11", "leaky_relu18", "leaky_relu19"}


def _models() -> list[Path]:
    if not SINGLE_OP.is_dir():
        return []
    return sorted(SINGLE_OP.glob("*/*.tflite"), key=lambda p: (p.parent.name, int(re.sub(r"\D", "", p.stem) or 0)))


def _read_csv(path: Path) -> np.ndarray:
    dtype = np.dtype(path.stem.rsplit("_", 1)[1])
    return np.array([int(v) for v in path.read_text().replace("\n", ",").split(",") if v.strip()], dtype=dtype)


MODELS = _models()


@pytest.mark.skipif(not MODELS, reason=f"single_op_int16 models are absent from {SINGLE_OP}")
@pytest.mark.parametrize("model", MODELS, ids=[p.stem for p in MODELS])
def test_single_op_int16_matches_golden(model: Path):
    inputs = [_read_csv(p) for p in sorted(model.parent.glob(f"{model.stem}_input*_*.csv"))]
    golden = _read_csv(next(model.parent.glob(f"{model.stem}_golden_*.csv")))
    result = compare_with_tflm(model.read_bytes(), samples=[inputs])
    compiled = result.compiled[0][0].ravel()
    reference = result.reference[0][0].ravel()
    tflm = np.asarray(result.tflm[0][0]).ravel()
    np.testing.assert_array_equal(compiled, reference, err_msg="compiled C differs from the reference interpreter")
    np.testing.assert_array_equal(compiled, tflm, err_msg="compiled C differs from TFLite Micro")
    if model.stem in TFLM_OFF_BY_ONE:
        assert np.abs(compiled.astype(np.int64) - golden).max() <= 1
    else:
        np.testing.assert_array_equal(compiled, golden, err_msg="compiled C differs from the golden output")
