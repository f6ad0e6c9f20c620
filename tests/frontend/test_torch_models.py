"""PyTorch modules through micro_relay.from_torch (torch.export -> Relax -> Micro Relay): the compiled C
matches torch in float within 1e-4 relative, with NHWC inputs by default and NCHW when asked, and keeps the
C constraints of the TFLite path (strict build, byte-identical regeneration, arena within the live sum)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -r requirements-test.txt)")
from support import torch_models  # noqa: E402  (skips without torch)
from support.c_harness import compile_and_run  # noqa: E402

import micro_relay  # noqa: E402
from micro_relay.plan.buffers import tensor_lifetimes  # noqa: E402


def _live_sum_bound(graph, order) -> int:
    """Largest sum of live non-constant tensor bytes at one step: what an interpreter that keeps every tensor
    in its own buffer needs, with no aliasing or in-place credit."""
    life = tensor_lifetimes(graph, order)
    return max(sum(graph.type_of(n).nbytes for n, (a, b) in life.items() if a <= step <= b)
               for step in range(len(order)))


@pytest.mark.parametrize("name", sorted(torch_models.MODELS))
def test_float_module_matches_torch(name, tmp_path):
    module, shape, _ = torch_models.build(name)
    inputs = torch_models.samples(shape, 3, seed=1)
    graph = micro_relay.from_torch(module, (torch_models.torch.zeros(shape),))
    got = compile_and_run(graph, [[torch_models.to_nhwc(x)] for x in inputs], tmp_path)
    for sample, want in zip(got, torch_models.torch_outputs(module, inputs)):
        np.testing.assert_allclose(sample[0].reshape(want.shape), want, rtol=1e-4, atol=1e-5)
    model = micro_relay.compile(graph, tmp_path / "again", name="net")
    assert model.plan.arena_bytes <= _live_sum_bound(model.graph, model.plan.order)


def test_nchw_io_layout_keeps_the_module_layout(tmp_path):
    module, shape, _ = torch_models.build("residual_cnn")
    inputs = torch_models.samples(shape, 2, seed=2)
    graph = micro_relay.from_torch(module, (torch_models.torch.zeros(shape),), io_layout="nchw")
    assert graph.type_of(graph.inputs[0]).shape == shape
    got = compile_and_run(graph, [[x] for x in inputs], tmp_path)
    for sample, want in zip(got, torch_models.torch_outputs(module, inputs)):
        np.testing.assert_allclose(sample[0].reshape(want.shape), want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(torch_models.MODELS))
def test_nhwc_default_runs_no_transpose(name):
    """Convolutions and pools run NHWC with no runtime transpose: weights are transposed at compile time,
    and a flatten of a feature map into a dense layer permutes the dense weights instead. (1-D models: one
    transpose of the input, since 3-D inputs are not images and keep the model's layout.)"""
    module, shape, _ = torch_models.build(name)
    graph = micro_relay.from_torch(module, (torch_models.torch.zeros(shape),))
    transposes = [n for n in graph.nodes if n.op == "transpose"]
    if len(shape) == 4:
        assert graph.type_of(graph.inputs[0]).shape == (shape[0], shape[2], shape[3], shape[1])
    if len(shape) == 3:  # 3-D inputs keep the model's (N, C, W): one transpose to channels-last, at the input
        assert len(transposes) == 1 and transposes[0].inputs == graph.inputs
    else:
        assert transposes == []


def test_regeneration_is_byte_identical(tmp_path):
    module, shape, _ = torch_models.build("residual_cnn")
    example = (torch_models.torch.zeros(shape),)
    first = micro_relay.compile(micro_relay.from_torch(module, example), tmp_path / "a", name="net").files
    second = micro_relay.compile(micro_relay.from_torch(module, example), tmp_path / "b", name="net").files
    assert first == second
