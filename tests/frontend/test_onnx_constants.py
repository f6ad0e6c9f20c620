"""Exporters' run-time shape arithmetic folded before import: PyTorch's F.pad before a Conv (a chain of
Constant/ConstantOfShape/Concat/Slice/Transpose/Cast into Pad) and x.view(x.size(0), -1) (Shape/Gather/
Unsqueeze/Concat into Reshape) compile, and match onnxruntime."""

from __future__ import annotations

import numpy as np
import onnx
import pytest

pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -r requirements-test.txt)")
pytest.importorskip("onnxruntime")
from support import torch_models  # noqa: E402
from support.c_harness import compile_and_run  # noqa: E402
from support.ort_oracle import oracle_session  # noqa: E402

from micro_relay.frontend import load_model  # noqa: E402
from micro_relay.passes import run_pipeline  # noqa: E402

torch = torch_models.torch


class PadConvView(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, stride=2)
        self.fc = torch.nn.Linear(4 * 3 * 3, 5)

    def forward(self, x):
        y = torch.relu(self.conv(torch.nn.functional.pad(x, (1, 1, 2, 0))))  # asymmetric "same" padding
        return self.fc(y.view(y.size(0), -1))


def test_shape_arithmetic_folds_and_pad_merges_into_the_conv(tmp_path):
    torch.manual_seed(0)
    path = torch_models.export_onnx(PadConvView().eval(), (1, 3, 6, 6), tmp_path / "padconv.onnx")
    exported = {n.op_type for n in onnx.load(str(path)).graph.node}
    assert {"Pad", "ConstantOfShape", "Shape"} <= exported  # what the exporter wrote
    graph = run_pipeline(load_model(path, io_layout="nchw"))
    conv = next(n for n in graph.nodes if n.op == "nn.conv2d")
    assert conv.attrs["padding"] == (2, 1, 0, 1)  # (top, left, bottom, right)
    assert not any(n.op == "nn.pad" for n in graph.nodes)
    session = oracle_session(path)
    inputs = torch_models.samples((1, 3, 6, 6), 3, seed=9)
    got = compile_and_run(graph, [[x] for x in inputs], tmp_path / "c")
    for sample, x in zip(got, inputs):
        np.testing.assert_allclose(sample[0], session.run(None, {"input": x})[0], rtol=1e-4, atol=1e-5)
