"""ONNX Clip, as torch exports relu6 and clamp(min=0): apache-tvm writes it as maximum/minimum TIR calls,
which become relu and relu6 (fused into the convolution before them); other bounds become the maximum and
minimum ops."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -r requirements-test.txt)")
from support import torch_models  # noqa: E402
from support.c_harness import compile_and_run  # noqa: E402

from micro_relay.frontend import load_model  # noqa: E402
from micro_relay.passes import run_pipeline  # noqa: E402

torch = torch_models.torch


class ClipNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3)

    def forward(self, x):
        return torch.nn.functional.relu6(self.conv(x)) + torch.clamp(x[:, :1, 1:3, 1:3], min=0)


class ClampNet(torch.nn.Module):
    def forward(self, x):
        return torch.clamp(x, -1, 1)


def test_relu6_and_clamp_at_zero(tmp_path):
    torch.manual_seed(0)
    net = ClipNet().eval()
    path = torch_models.export_onnx(net, (1, 3, 4, 4), tmp_path / "clip.onnx")
    graph = run_pipeline(load_model(path, io_layout="nchw"))
    assert any(n.op == "nn.conv2d" and n.attrs.get("activation") == "relu6" for n in graph.nodes)
    inputs = [np.random.default_rng(s).standard_normal((1, 3, 4, 4)).astype(np.float32) * 4 for s in range(3)]
    got = compile_and_run(graph, [[x] for x in inputs], tmp_path / "c")
    for sample, x in zip(got, inputs):
        want = net(torch.from_numpy(x)).detach().numpy()
        np.testing.assert_allclose(sample[0], want, rtol=1e-5, atol=1e-6)


def test_other_clip_bounds_are_a_maximum_and_a_minimum(tmp_path):
    path = torch_models.export_onnx(ClampNet().eval(), (1, 4), tmp_path / "clamp.onnx")
    graph = run_pipeline(load_model(path))
    assert [n.op for n in graph.nodes] == ["maximum", "minimum"]
    x = np.array([[-3.0, -0.5, 0.25, 2.0]], np.float32)
    got = compile_and_run(graph, [[x]], tmp_path / "c")[0][0]
    np.testing.assert_array_equal(got, np.clip(x, -1, 1))
