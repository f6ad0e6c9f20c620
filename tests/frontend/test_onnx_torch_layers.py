"""Layers of mobile networks that the ONNX and PyTorch frontends rewrite onto Micro Relay's ops (transposed
convolutions with groups, dilation and output padding; split and chunk; reflect, replicate and constant
padding; ceil-mode, dilated and padding-counting pools; nearest and bilinear resizes; layer norm, comparisons
and where, clamps, hard-swish and hard-sigmoid, PReLU), each in a small module after a convolution, so the
value arrives channels-last as in a network. Each module runs through from_torch and through torch.onnx.export;
both compiled C programs must match torch within 1e-4 relative (onnxruntime agrees with torch on each)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -r requirements-test.txt)")
from support import torch_models  # noqa: E402
from support.c_harness import compile_and_run  # noqa: E402
from support.ort_oracle import oracle_session, run_each  # noqa: E402

import micro_relay  # noqa: E402
from micro_relay.errors import CompileError  # noqa: E402
from micro_relay.frontend import load_model  # noqa: E402
from micro_relay.passes import run_pipeline  # noqa: E402

torch = torch_models.torch
nn = torch.nn
F = nn.functional


class AfterConv(nn.Module):
    """conv(3 -> channels) then `layer`: the layer sees a channels-last value."""

    def __init__(self, layer, channels: int = 8, one_d: bool = False):
        super().__init__()
        self.conv = (nn.Conv1d if one_d else nn.Conv2d)(3, channels, 3, padding=1)
        self.layer = layer

    def forward(self, x):
        return self.layer(self.conv(x))


class Lambda(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


def _chunk_mix(x):
    a, b, c = x.chunk(3, dim=1)  # 9 channels
    return torch.cat([c * 2.0, torch.sigmoid(a) * b], 1)


def _split_rows(x):
    top, bottom = torch.split(x, [2, 5], dim=2)
    return torch.cat([bottom, top + 1.0], 2)


def _prelu(channels: int):
    layer = nn.PReLU(channels)
    layer.weight.data.copy_(torch.linspace(-0.5, 0.9, channels))  # a slope per channel
    return layer


CASES = {
    "conv_transpose_stride2_output_padding": (lambda: AfterConv(nn.ConvTranspose2d(8, 4, 3, 2, 1, output_padding=1)),
                                              (1, 3, 6, 5)),
    "conv_transpose_groups_dilation": (lambda: AfterConv(nn.ConvTranspose2d(8, 6, 3, 2, 2, groups=2, dilation=2)),
                                       (1, 3, 5, 5)),
    "conv_transpose_4x4_upsample": (lambda: AfterConv(nn.ConvTranspose2d(8, 8, 4, 2, 1, bias=False)), (1, 3, 4, 4)),
    "conv_transpose_1d": (lambda: AfterConv(nn.ConvTranspose1d(8, 6, 5, 2, 2, output_padding=1), one_d=True),
                          (1, 3, 10)),
    "chunk_channels": (lambda: AfterConv(Lambda(_chunk_mix), channels=9), (1, 3, 5, 6)),
    "split_rows": (lambda: AfterConv(Lambda(_split_rows)), (1, 3, 7, 4)),
    "pad_reflect": (lambda: AfterConv(nn.ReflectionPad2d((1, 2, 2, 1))), (1, 3, 5, 6)),
    "pad_replicate": (lambda: AfterConv(nn.ReplicationPad2d((2, 0, 1, 3))), (1, 3, 4, 5)),
    "pad_constant": (lambda: AfterConv(Lambda(lambda x: F.pad(x, (1, 1, 0, 2), value=1.5))), (1, 3, 4, 4)),
    "max_pool_ceil_mode": (lambda: AfterConv(nn.MaxPool2d(3, 2, ceil_mode=True)), (1, 3, 8, 10)),
    "avg_pool_counting_padding": (lambda: AfterConv(nn.AvgPool2d(3, 2, padding=1)), (1, 3, 7, 8)),
    "avg_pool_ceil_counting_padding": (lambda: AfterConv(nn.AvgPool2d(3, 2, padding=1, ceil_mode=True)), (1, 3, 8, 8)),
    "avg_pool_ceil_not_counting": (lambda: AfterConv(nn.AvgPool2d(2, 2, padding=1, ceil_mode=True,
                                                                  count_include_pad=False)), (1, 3, 7, 6)),
    "max_pool_dilated": (lambda: AfterConv(nn.MaxPool2d(3, 2, padding=1, dilation=2)), (1, 3, 11, 9)),
    "upsample_nearest_2x": (lambda: AfterConv(nn.Upsample(scale_factor=2, mode="nearest")), (1, 3, 4, 5)),
    "upsample_bilinear": (lambda: AfterConv(nn.Upsample(scale_factor=2, mode="bilinear")), (1, 3, 4, 5)),
    "resize_bilinear_align_corners": (lambda: AfterConv(Lambda(lambda x: F.interpolate(
        x, size=(7, 3), mode="bilinear", align_corners=True))), (1, 3, 4, 5)),
    "layer_norm_1d_features": (lambda: AfterConv(Lambda(lambda x: F.layer_norm(x, (10,))), one_d=True), (1, 3, 10)),
    "greater_where": (lambda: AfterConv(Lambda(lambda x: torch.where(x > 0.25, x, x * 0.1))), (1, 3, 4, 4)),
    "clamp_max_6": (lambda: AfterConv(Lambda(lambda x: torch.clamp(x * 8.0, max=6.0))), (1, 3, 4, 4)),
    "clamp_both": (lambda: AfterConv(Lambda(lambda x: torch.clamp(x, -0.5, 0.25))), (1, 3, 4, 4)),
    "hardswish_hardsigmoid": (lambda: AfterConv(Lambda(lambda x: F.hardswish(x * 4) + F.hardsigmoid(x * 4))),
                              (1, 3, 4, 4)),
    "prelu_channels": (lambda: AfterConv(_prelu(8)), (1, 3, 4, 4)),
    "max_pool_1d_dilated": (lambda: AfterConv(nn.MaxPool1d(3, 3, padding=1, dilation=3), one_d=True), (1, 3, 20)),
}


def _module(name: str):
    torch.manual_seed(len(name))
    factory, shape = CASES[name]
    return factory().eval(), shape


def _check(graph, module, inputs, tmp_path):
    """The graph's inputs and outputs in the module's layout (io_layout='nchw'; inside, values run NHWC)."""
    got = compile_and_run(graph, [[x] for x in inputs], tmp_path)
    for sample, want in zip(got, torch_models.torch_outputs(module, inputs)):
        np.testing.assert_allclose(sample[0].reshape(want.shape), want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(CASES))
def test_layer_through_from_torch(name, tmp_path):
    module, shape = _module(name)
    inputs = torch_models.samples(shape, 2, seed=3)
    graph = micro_relay.from_torch(module, (torch.zeros(shape),), io_layout="nchw")
    _check(graph, module, inputs, tmp_path)


@pytest.mark.parametrize("name", sorted(CASES))
def test_layer_through_onnx(name, tmp_path):
    module, shape = _module(name)
    inputs = torch_models.samples(shape, 2, seed=4)
    path = torch_models.export_onnx(module, shape, tmp_path / "layer.onnx")
    for ours, theirs in zip(torch_models.torch_outputs(module, inputs), run_each(oracle_session(path), inputs)):
        np.testing.assert_allclose(theirs, ours, rtol=1e-4, atol=1e-5)  # the oracles agree
    graph = run_pipeline(load_model(path, io_layout="nchw"))
    _check(graph, module, inputs, tmp_path / "c")


def test_reflect_padding_wider_than_the_axis_is_refused(tmp_path):
    """onnxruntime and torch refuse to reflect 3 rows of a 3-row axis; so does the compiler, in one line."""
    from onnx import TensorProto, helper

    node = helper.make_node("Pad", ["x", "pads"], ["y"], mode="reflect")
    pads = helper.make_tensor("pads", TensorProto.INT64, [8], [0, 0, 3, 0, 0, 0, 0, 0])
    graph = helper.make_graph([node], "pad", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 3, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 6, 3])], [pads])
    path = tmp_path / "pad.onnx"
    path.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString())
    with pytest.raises(CompileError) as info:
        load_model(path)
    assert "reflect padding by 3 needs an axis longer than 3" in str(info.value) and "\n" not in str(info.value)


def test_qdq_conv1d_with_as_many_inputs_as_outputs(tmp_path):
    """A per-channel QDQ Conv1d whose weight is [64, 64, 5]: the channel axis is followed through the reshape
    to [64, 64, 1, 5] (both leading axes have 64 entries). Within one step of onnxruntime op by op."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    torch.manual_seed(5)
    module = nn.Sequential(nn.Conv1d(64, 64, 5, padding=2), nn.ReLU()).eval()
    shape = (1, 64, 32)
    samples = torch_models.samples(shape, 8, seed=6)

    class Samples(CalibrationDataReader):
        def __init__(self):
            self._it = iter([{"input": x} for x in samples])

        def get_next(self):
            return next(self._it, None)

    float_path = torch_models.export_onnx(module, shape, tmp_path / "conv1d.onnx")
    path = tmp_path / "conv1d_qdq.onnx"
    quantize_static(str(float_path), str(path), Samples(), quant_format=QuantFormat.QDQ,
                    activation_type=QuantType.QInt8, weight_type=QuantType.QInt8, per_channel=True)
    graph = run_pipeline(load_model(path, io_layout="nchw"))
    conv = next(n for n in graph.nodes if n.op == "nn.conv2d")
    assert graph.type_of(conv.inputs[1]).quant.axis == 0 and len(graph.type_of(conv.inputs[1]).quant.scales) == 64
    inputs = torch_models.samples(shape, 3, seed=8)
    expected = np.stack(run_each(oracle_session(path), inputs))
    got = np.stack([s[0].reshape(expected.shape[1:]) for s in compile_and_run(graph, [[x] for x in inputs], tmp_path)])
    step = next(graph.type_of(n.inputs[0]).quant.scale for n in graph.nodes if n.op == "qnn.dequantize")
    assert np.mean(np.abs(got - expected) / step <= 1.001) >= 0.999
