"""The ONNX backend test models that ship inside the onnx wheel (pytorch-operator, pytorch-converted).

Every model is either supported (it compiles, its C builds with -Werror and its outputs match the bundled
expected outputs within 1e-4 relative) or listed in UNSUPPORTED with the reason, and then must fail with a
one-line CompileError. A model that moves from one list to the other fails this test until the list says so.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -r requirements-test.txt)")
from onnx import numpy_helper  # noqa: E402

from micro_relay.errors import CompileError  # noqa: E402
from micro_relay.frontend import load_model  # noqa: E402
from micro_relay.passes import run_pipeline  # noqa: E402

from support.c_harness import compile_and_run  # noqa: E402

DATA = Path(onnx.__file__).parent / "backend" / "test" / "data"
MODELS = sorted(p.parent for folder in ("pytorch-operator", "pytorch-converted")
                for p in (DATA / folder).glob("*/model.onnx"))

_OPS = {
    "float64": ["test_operator_add_broadcast", "test_operator_add_size1_broadcast",
                "test_operator_add_size1_right_broadcast", "test_operator_add_size1_singleton_broadcast",
                "test_operator_addconstant"],
    "int64 arithmetic": ["test_operator_non_float_params"],
}
UNSUPPORTED = {model: reason for reason, models in _OPS.items() for model in models}


def _tensors(folder: Path, kind: str) -> list[np.ndarray]:
    return [numpy_helper.to_array(onnx.load_tensor(str(p)))
            for p in sorted((folder / "test_data_set_0").glob(f"{kind}_*.pb"))]


def test_every_listed_model_exists():
    names = {m.name for m in MODELS}
    assert len(MODELS) > 100, f"expected the onnx wheel's backend test models under {DATA}"
    assert set(UNSUPPORTED) <= names, sorted(set(UNSUPPORTED) - names)


@pytest.mark.parametrize("folder", MODELS, ids=lambda p: p.name)
def test_backend_model(folder: Path, tmp_path):
    if folder.name in UNSUPPORTED:
        with pytest.raises(CompileError) as info:
            run_pipeline(load_model(folder / "model.onnx", io_layout="nchw"))
        assert "\n" not in str(info.value) and str(info.value)
        return
    graph = run_pipeline(load_model(folder / "model.onnx", io_layout="nchw"))
    outputs = compile_and_run(graph, [_tensors(folder, "input")], tmp_path)[0]
    expected = _tensors(folder, "output")
    assert len(outputs) == len(expected)
    for got, want in zip(outputs, expected):
        np.testing.assert_allclose(got.reshape(want.shape), want, rtol=1e-4, atol=1e-5)
