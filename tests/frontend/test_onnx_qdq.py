"""QDQ int8 ONNX models (onnxruntime's quantize_static, per-tensor and per-channel weights) compile to
integer kernels and agree with onnxruntime run with graph optimizations off (QDQ executed as written; the
optimized session's int8 kernels differ by CPU): within one quantization step of the output on at least
99.9% of outputs, and on the argmax of every classifier sample whose top class leads by more than two steps
(closer ones may swap within the one-step tolerance). The models include ReLU networks and the activations
whose integer kernels fix their output scale: tanh and sigmoid hidden layers, SiLU, squeeze-excite; and a
softmax, which stays float."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -r requirements-test.txt)")
pytest.importorskip("onnxruntime")
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static  # noqa: E402
from support import torch_models  # noqa: E402
from support.c_harness import compile_and_run  # noqa: E402
from support.ort_oracle import oracle_session, run_each  # noqa: E402

from micro_relay.frontend import load_model  # noqa: E402
from micro_relay.passes import run_pipeline  # noqa: E402

WEIGHT_OPS = {"nn.conv2d", "nn.depthwise_conv2d", "nn.dense"}


class _Samples(CalibrationDataReader):
    def __init__(self, samples):
        self._it = iter([{"input": x} for x in samples])

    def get_next(self):
        return next(self._it, None)


def quantized_model(name: str, per_channel: bool, folder, activation_type=QuantType.QInt8):
    module, shape, classifier = torch_models.build(name)
    float_path = torch_models.export_onnx(module, shape, folder / f"{name}.onnx")
    qdq_path = folder / f"{name}_qdq.onnx"
    quantize_static(str(float_path), str(qdq_path), _Samples(torch_models.samples(shape, 32, seed=7)),
                    quant_format=QuantFormat.QDQ, activation_type=activation_type, weight_type=QuantType.QInt8,
                    per_channel=per_channel)
    return qdq_path, shape, classifier


def _output_step(graph) -> float:
    producer = {o: n for n in graph.nodes for o in n.outputs}
    node = producer[graph.outputs[0]]
    assert node.op == "qnn.dequantize", "a QDQ model's float output comes from a dequantize"
    return graph.type_of(node.inputs[0]).quant.scale


@pytest.mark.parametrize("per_channel", [False, True], ids=["per_tensor", "per_channel"])
@pytest.mark.parametrize("name", sorted(torch_models.MODELS))
def test_qdq_model_matches_onnxruntime(name, per_channel, tmp_path):
    path, shape, classifier = quantized_model(name, per_channel, tmp_path)
    graph = run_pipeline(load_model(path))
    for node in graph.nodes:  # integer kernels: every op with weights reads int8 data and int8 weights
        if node.op in WEIGHT_OPS:
            assert graph.type_of(node.inputs[0]).dtype.value == "int8", node
            assert graph.type_of(node.inputs[1]).dtype.value == "int8", node
            assert node.attrs.get("rounding") == "single", node  # a QDQ node: the exact result rounded once
        if node.op == "qnn.quantize" and graph.type_of(node.inputs[0]).dtype.value == "float32":
            assert node.attrs.get("ties") == "even", node  # ONNX QuantizeLinear
    assert any(n.op in WEIGHT_OPS for n in graph.nodes)
    float_ops = {n.op for n in graph.nodes if graph.type_of(n.outputs[0]).dtype.value == "float32"}
    assert float_ops <= {"qnn.dequantize", "mean", "nn.softmax"}, f"{float_ops} run in float"  # lower_qdq.KEEP_FLOAT
    inputs = torch_models.samples(shape, 40, seed=11)
    expected = run_each(oracle_session(path), inputs)
    got = [s[0] for s in compile_and_run(graph, [[torch_models.to_nhwc(x)] for x in inputs], tmp_path / "c")]
    step = _output_step(graph)
    got, expected = np.stack([g.reshape(e.shape) for g, e in zip(got, expected)]), np.stack(expected)
    steps = np.abs(got - expected) / step
    within = np.mean(steps <= 1.001)
    assert within >= 0.999, f"{within:.4f} of outputs within one step ({step}); worst {steps.max():.2f} steps"
    if classifier:
        got, expected = got.reshape(len(inputs), -1), expected.reshape(len(inputs), -1)
        top2 = np.sort(expected, axis=1)[:, -2:]
        decisive = (top2[:, 1] - top2[:, 0]) / step > 2.001
        agree = np.argmax(got, axis=1) == np.argmax(expected, axis=1)
        assert decisive.sum() >= len(inputs) // 2, f"only {decisive.sum()} samples with a clear top class"
        assert agree[decisive].all(), f"argmax differs on {np.sum(~agree[decisive])} of {decisive.sum()} samples"


@pytest.mark.parametrize("name", ["ds_kws", "tanh_sigmoid_mlp"])
def test_uint8_activations_become_int8(name, tmp_path):
    """quantize_static's default uint8 activations run on the int8 kernels (zero point - 128, exact), the
    fixed-unit ones (tanh, sigmoid) with their requantize."""
    path, shape, _ = quantized_model(name, True, tmp_path, activation_type=QuantType.QUInt8)
    graph = run_pipeline(load_model(path))
    assert all(graph.type_of(n.outputs[0]).dtype.value != "uint8" for n in graph.nodes)
    inputs = torch_models.samples(shape, 20, seed=3)
    expected = run_each(oracle_session(path), inputs)
    got = [s[0] for s in compile_and_run(graph, [[torch_models.to_nhwc(x)] for x in inputs], tmp_path / "c")]
    step = _output_step(graph)
    assert max(float(np.max(np.abs(g.reshape(e.shape) - e))) for g, e in zip(got, expected)) <= step * 1.001


ARM_GCC = __import__("shutil").which("arm-none-eabi-gcc")
ARM_NM = __import__("shutil").which("arm-none-eabi-nm")


@pytest.mark.skipif(ARM_GCC is None or ARM_NM is None, reason="arm-none-eabi-gcc is not installed (apt-get install gcc-arm-none-eabi)")
def test_qdq_model_builds_for_cortex_m4_without_allocator(tmp_path):
    import subprocess

    from support.c_harness import STRICT_FLAGS

    from micro_relay.compiler import compile_graph, write_output

    path, _, _ = quantized_model("ds_kws", True, tmp_path)
    out = tmp_path / "out"
    write_output(compile_graph(run_pipeline(load_model(path)), "kws", path.name), out)
    objects = []
    for source in sorted(out.glob("*.c")):
        obj = tmp_path / f"{source.stem}.o"
        result = subprocess.run([ARM_GCC, "-mcpu=cortex-m4", "-mthumb", "-Os", *STRICT_FLAGS, "-I", str(out), "-c",
                                 str(source), "-o", str(obj)], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr[-3000:]
        objects.append(str(obj))
    undefined = set(subprocess.run([ARM_NM, "-u", *objects], capture_output=True, text=True).stdout.split())
    assert not undefined & {"malloc", "calloc", "realloc", "free"}, undefined


def test_regeneration_in_fresh_processes_is_byte_identical(tmp_path):
    import os
    import subprocess
    import sys

    path, _, _ = quantized_model("residual_cnn", True, tmp_path)
    trees = []
    for seed in ("1", "2"):
        out = tmp_path / f"out{seed}"
        subprocess.run([sys.executable, "-m", "micro_relay", "compile", str(path), "-o", str(out)], check=True,
                       capture_output=True, env=dict(os.environ, PYTHONHASHSEED=seed))
        trees.append({p.relative_to(out): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()})
    assert trees[0] == trees[1]
