"""ONNX MatMul of two runtime tensors (attention's Q K^T and scores V, torch.matmul of activations) becomes
nn.batch_matmul; torch is the oracle."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -r requirements-test.txt)")
from support import torch_models  # noqa: E402
from support.c_harness import compile_and_run  # noqa: E402

from micro_relay.frontend import load_model  # noqa: E402
from micro_relay.passes import run_pipeline  # noqa: E402

torch = torch_models.torch


class Attention(torch.nn.Module):
    """One head of self-attention without softmax: (x Wq)(x Wk)^T (x Wv)."""

    def __init__(self, dim: int):
        super().__init__()
        self.q = torch.nn.Linear(dim, dim, bias=False)
        self.k = torch.nn.Linear(dim, dim, bias=False)
        self.v = torch.nn.Linear(dim, dim, bias=False)

    def forward(self, x):
        scores = torch.matmul(self.q(x), self.k(x).transpose(-1, -2))
        return torch.matmul(scores, self.v(x))


class BatchedProducts(torch.nn.Module):
    """Batch dims broadcast: [2, 3, 4, 5] @ [3, 5, 4], the second operand computed from the input."""

    def forward(self, x):
        return torch.matmul(x, x[:1].transpose(-1, -2).reshape(3, 5, 4) * 0.5)


@pytest.mark.parametrize("net, shape", [(Attention(8), (1, 6, 8)), (BatchedProducts(), (2, 3, 4, 5))],
                         ids=["attention", "broadcast batch"])
def test_runtime_matmul_matches_torch(net, shape, tmp_path):
    torch.manual_seed(0)
    net = net.eval()
    path = torch_models.export_onnx(net, shape, tmp_path / "matmul.onnx")
    graph = run_pipeline(load_model(path, io_layout="nchw"))
    assert any(n.op == "nn.batch_matmul" for n in graph.nodes)
    inputs = [np.random.default_rng(s).standard_normal(shape).astype(np.float32) for s in range(2)]
    got = compile_and_run(graph, [[x] for x in inputs], tmp_path / "c")
    for sample, x in zip(got, inputs):
        want = net(torch.from_numpy(x)).detach().numpy()
        np.testing.assert_allclose(sample[0].reshape(want.shape), want, rtol=1e-5, atol=1e-5)
