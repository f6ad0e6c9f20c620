"""`micro-relay compile model.onnx --quantize int8 --calibration data.npz` end to end: a float ONNX model
becomes integer C. Calibration samples have the shape the NCHW model takes, whatever --io-layout says; samples
in the compiled NHWC layout get one line that names both shapes."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -r requirements-test.txt)")
from support import torch_models  # noqa: E402

from micro_relay.cli import main  # noqa: E402
from micro_relay.compiler import prepare_graph  # noqa: E402
from micro_relay.ops.fused_rows import layers  # noqa: E402
from micro_relay.quantize.calibration_data import load_calibration  # noqa: E402
from micro_relay.reference import run  # noqa: E402


def _float_onnx(tmp_path):
    module, shape, _ = torch_models.build("residual_cnn")
    return module, torch_models.export_onnx(module, shape, tmp_path / "net.onnx"), shape


def _compile(capsys, path, out, calibration, *options) -> tuple[int, str]:
    code = main(["compile", str(path), "-o", str(out), *options, "--quantize", "int8", "--calibration",
                 str(calibration)])
    return code, capsys.readouterr().err


def test_float_onnx_compiles_to_int8_kernels(tmp_path, capsys):
    _, path, shape = _float_onnx(tmp_path)
    np.savez(tmp_path / "calib.npz", input=np.stack(torch_models.samples(shape, 16, seed=4)))
    out = tmp_path / "out"
    code, err = _compile(capsys, path, out, tmp_path / "calib.npz")
    assert code == 0, err
    source = (out / "net.c").read_text()
    assert "mr_conv2d_s8_portable(" in source and "mr_conv2d_f32(" not in source
    assert "SQNR" in err or "dB" in err  # the per-layer report


def test_calibration_samples_take_the_models_nchw_shape_with_either_io_layout(tmp_path, capsys):
    """The same NCHW file calibrates an NHWC-compiled and an NCHW-compiled model to the same quantization:
    the transpose to the compiled layout happens inside, and every layer sees the same ranges."""
    _, path, shape = _float_onnx(tmp_path)
    np.savez(tmp_path / "calib.npz", input=np.stack(torch_models.samples(shape, 8, seed=4)))
    plans = {}
    for layout in ("nhwc", "nchw"):
        out = tmp_path / layout
        code, err = _compile(capsys, path, out, tmp_path / "calib.npz", "--io-layout", layout)
        assert code == 0, err
        header = (out / "net.h").read_text()
        plans[layout] = [line for line in err.splitlines() if " dB" in line]
        assert "NET_INPUT0_SCALE" not in header  # float I/O: the scales are in the report
    assert plans["nhwc"] and plans["nhwc"] == plans["nchw"]


def test_nhwc_samples_for_an_nchw_model_name_both_shapes(tmp_path, capsys):
    _, path, shape = _float_onnx(tmp_path)
    nhwc = np.stack([torch_models.to_nhwc(x) for x in torch_models.samples(shape, 4, seed=4)])
    np.savez(tmp_path / "calib.npz", input=nhwc)
    before = sorted(tmp_path.iterdir())
    code, err = _compile(capsys, path, tmp_path / "out", tmp_path / "calib.npz")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: "), err
    assert "has shape (4, 1, 16, 16, 3); expected (N, 1, 3, 16, 16)" in lines[0]
    assert "the compiled input is (1, 16, 16, 3)" in lines[0] and "compiled NHWC layout" in lines[0]
    assert lines[0].endswith(f"({tmp_path / 'calib.npz'})")
    assert sorted(tmp_path.iterdir()) == before


def test_samples_reach_the_compiled_graph_as_torch_sees_them(tmp_path):
    """Oracle torch: the float graph run on a loaded (transposed) sample computes what the module computes
    on the NCHW sample the file holds."""
    module, path, shape = _float_onnx(tmp_path)
    xs = torch_models.samples(shape, 3, seed=9)
    np.save(tmp_path / "calib.npy", np.stack(xs))
    graph = prepare_graph(path)
    samples = load_calibration(tmp_path / "calib.npy", graph)
    assert samples[0][0].shape == (1, 16, 16, 3)
    for sample, expected in zip(samples, torch_models.torch_outputs(module, xs)):
        np.testing.assert_allclose(run(graph, sample)[0], expected, rtol=1e-4, atol=1e-4)


def test_from_torch_then_compile_with_calibration(tmp_path):
    """The Python API: micro_relay.compile(graph, out, calibration=...) quantizes a from_torch graph from
    samples of the module's own (NCHW) shape."""
    import micro_relay
    from micro_relay.quantize import QuantizeOptions

    module, shape, _ = torch_models.build("ds_kws")
    graph = micro_relay.from_torch(module, (torch_models.torch.zeros(shape),))
    assert graph.tensors[graph.inputs[0]].source_shape == shape
    samples = np.stack(torch_models.samples(shape, 8, seed=5))
    model = micro_relay.compile(graph, tmp_path / "out", name="kws", calibration=[samples],
                                quantize=QuantizeOptions(method="mse"))
    # the layers the model runs (fused.rows nodes, where its convolutions run row by row, hold theirs)
    ops = {n.op: model.graph.type_of(n.inputs[0]).dtype.value for n in layers(model.graph.nodes)}
    assert ops["nn.conv2d"] == "int8" and ops["nn.depthwise_conv2d"] == "int8"
    assert json.loads((tmp_path / "out" / "kws.plan.json").read_text())
    with pytest.raises(micro_relay.errors.CompileError, match=r"expected \(N, 1, 1, 49, 10\)"):
        micro_relay.compile(graph, tmp_path / "bad", name="kws", calibration=[samples.transpose(0, 1, 3, 4, 2)])
    assert not (tmp_path / "bad").exists()
