"""`micro-relay compile model.onnx --quantize int8 --calibration data.npz` end to end: a float ONNX model
becomes integer C; calibration data in the model's NCHW layout gets an error that says what to do."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -r requirements-test.txt)")
from support import torch_models  # noqa: E402

from micro_relay.cli import main  # noqa: E402


def _float_onnx(tmp_path):
    module, shape, _ = torch_models.build("residual_cnn")
    return torch_models.export_onnx(module, shape, tmp_path / "net.onnx"), shape


def test_float_onnx_compiles_to_int8_kernels(tmp_path, capsys):
    path, shape = _float_onnx(tmp_path)
    samples = np.stack([torch_models.to_nhwc(x) for x in torch_models.samples(shape, 16, seed=4)])
    np.savez(tmp_path / "calib.npz", input=samples)
    out = tmp_path / "out"
    code = main(["compile", str(path), "-o", str(out), "--quantize", "int8", "--calibration", str(tmp_path / "calib.npz")])
    err = capsys.readouterr().err
    assert code == 0, err
    source = (out / "net.c").read_text()
    assert "mr_conv2d_s8(" in source and "mr_conv2d_f32(" not in source
    assert "SQNR" in err or "dB" in err  # the per-layer report


def test_nchw_calibration_for_an_nhwc_input_says_what_to_do(tmp_path, capsys):
    path, shape = _float_onnx(tmp_path)
    np.savez(tmp_path / "calib.npz", input=np.stack(torch_models.samples(shape, 4, seed=4)))
    out = tmp_path / "out"
    code = main(["compile", str(path), "-o", str(out), "--quantize", "int8", "--calibration", str(tmp_path / "calib.npz")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "--io-layout nchw" in err, err
    assert not out.exists()
    code = main(["compile", str(path), "-o", str(out), "--io-layout", "nchw", "--quantize", "int8", "--calibration",
                 str(tmp_path / "calib.npz")])
    assert code == 0, capsys.readouterr().err


def test_from_torch_then_compile_with_calibration(tmp_path):
    """The Python API: micro_relay.compile(graph, out, calibration=...) quantizes a from_torch graph."""
    import micro_relay
    from micro_relay.quantize import QuantizeOptions

    module, shape, _ = torch_models.build("ds_kws")
    graph = micro_relay.from_torch(module, (torch_models.torch.zeros(shape),))
    samples = np.stack([torch_models.to_nhwc(x) for x in torch_models.samples(shape, 8, seed=5)])
    model = micro_relay.compile(graph, tmp_path / "out", name="kws", calibration=[samples],
                                quantize=QuantizeOptions(method="mse"))
    ops = {n.op: model.graph.type_of(n.inputs[0]).dtype.value for n in model.graph.nodes}
    assert ops["nn.conv2d"] == "int8" and ops["nn.depthwise_conv2d"] == "int8"
    assert (tmp_path / "out" / "kws.c").exists()
