"""The float MLPerf Tiny ResNet-8 (image classification, CIFAR-10 shaped input, 0..255 pixels), quantized
with synthetic calibration: 32 seeded uniform-noise images in the input's range [0, 255] (the shipped int8
model's input quantization (1.0, -128) says that range).

On 100 other seeded images its int8 top-1 must agree with the float model's on at least 95% (for scale:
the int8 model that ships beside it, converted by TFLite, agrees on 96.5% of 400 such images), its weights
must take at most 26% of the float weight bytes, and its compiled C must be bit-exact with the reference
interpreter on the quantized graph.
"""

from __future__ import annotations

import numpy as np
import pytest

from conftest import shared_model
from micro_relay.frontend import load_model
from micro_relay.passes import run_pipeline
from micro_relay.ir.types import DType
from micro_relay.quantize import QuantizeOptions, quantize_graph, quantize_with_report
from micro_relay.reference import run

from .support import assert_c_matches_reference

MODEL = "mlcommons_tiny/pretrainedResnet.tflite"


def images(seed: int, count: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(0, 255, (count, 1, 32, 32, 3)).astype(np.float32)


@pytest.fixture(scope="module")
def resnet():
    graph = run_pipeline(load_model(shared_model(MODEL)))
    q, report = quantize_with_report(graph, {graph.inputs[0]: images(0, 32)}, QuantizeOptions())
    test = images(1, 100)
    float_top1 = np.array([run(graph, [x])[0].argmax() for x in test])
    return graph, q, report, test, float_top1


def test_int8_resnet8_agrees_with_float_and_is_a_quarter_of_the_weights(resnet, tmp_path):
    graph, q, report, test, float_top1 = resnet
    compiled = assert_c_matches_reference(q, [[x] for x in test], tmp_path)
    int8_top1 = np.array([outs[0].argmax() for outs in compiled])
    agreement = (float_top1 == int8_top1).mean()
    print(f"\nResNet-8: top-1 agreement {100 * agreement:.1f}% on {len(test)} images\n{report.format()}")
    assert agreement >= 0.95
    assert report.weight_ratio <= 0.26
    assert q.type_of(q.inputs[0]).dtype.is_float and q.type_of(q.outputs[0]).dtype.is_float
    assert sum(n.op not in ("qnn.quantize", "qnn.dequantize") and q.type_of(n.outputs[0]).dtype.is_float
               for n in q.nodes) == 0, "every layer runs in int8"


def test_int8_resnet8_mse_calibration_with_int8_io(resnet):
    """The MSE range search with integer I/O keeps the agreement bar (reference interpreter, 100 images)."""
    graph, _, _, test, float_top1 = resnet
    q = quantize_graph(graph, {graph.inputs[0]: images(0, 32)}, QuantizeOptions(method="mse", int8_io=True))
    qin = q.type_of(q.inputs[0]).quant
    assert q.type_of(q.inputs[0]).dtype == DType.INT8 and q.type_of(q.outputs[0]).dtype == DType.INT8
    inputs = np.clip(np.round(test / np.float32(qin.scale)) + qin.zero_point, -128, 127).astype(np.int8)
    int8_top1 = np.array([run(q, [x])[0].argmax() for x in inputs])
    assert (float_top1 == int8_top1).mean() >= 0.95
