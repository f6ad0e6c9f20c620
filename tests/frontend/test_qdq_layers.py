"""Every quantized layer of the QDQ architectures against onnxruntime, each fed onnxruntime's own int8 inputs
(support/qdq_layers.py): what each layer computes, apart from what the layers before it handed on.

End to end (test_mobile_architectures.py), MNASNet, EfficientNet-B0, ResNet-18 and MobileNetV2-1.0 have
outputs more than one step from onnxruntime's (up to 7 on MNASNet's logits). Layer by layer, over all their
layers, a handful of values in millions differ, by one step, where onnxruntime's float32 convolution and the
exact integer sum land on either side of a rounding tie; the seeded random networks then amplify that one
value through the layers after it. The U-Net's upsampling (bilinear, float as ONNX defines it) rounds a
step apart at 0.4% of its values: its float interpolation orders its operations differently from
onnxruntime's.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -r requirements-test.txt)")
pytest.importorskip("onnxruntime")
from frontend.test_mobile_architectures import _inputs, _qdq_model, _shape  # noqa: E402
from support.qdq_layers import compare_layers  # noqa: E402

# (architecture, the largest fraction of layer values allowed to differ by a step). Measured here: a few in
# millions (benchmarks/qdq_layers.py). onnxruntime's float32 convolutions sum in an order its CPU's kernels
# choose, which moves which near-tie values flip: the bounds leave a hundredfold margin, not this CPU's count.
ARCHITECTURES = [("mnasnet1_0", 1e-4), ("efficientnet_b0", 1e-4), ("resnet18", 1e-4), ("mobilenet_v2", 1e-4),
                 ("mobilenet_v2_035", 1e-4), ("mobilenet_v3_small", 1e-4), ("squeezenet1_1", 1e-4),
                 ("shufflenet_v2_x0_5", 1e-4), ("kws_transformer", 5e-4), ("unet", 2e-3)]


@pytest.mark.parametrize("name, unequal", ARCHITECTURES, ids=[a[0] for a in ARCHITECTURES])
def test_each_layer_matches_onnxruntime_on_its_own_inputs(name, unequal, tmp_path):
    path, _ = _qdq_model(name, tmp_path)
    layers = compare_layers(path, _inputs(11, 1, _shape(name))[0], tmp_path)
    assert len(layers) >= 10 and all(layer.size > 0 for layer in layers)
    beyond = [layer.output for layer in layers if layer.worst > 1]
    assert not beyond, f"layers with a value more than one step from onnxruntime's: {beyond}"
    total = sum(layer.size for layer in layers)
    differing = sum((1 - layer.equal) * layer.size for layer in layers)
    assert differing / total <= unequal, f"{differing:.0f} of {total} values differ by a step"


def test_a_layer_fed_other_integers_than_onnxruntimes_is_caught(tmp_path, monkeypatch):
    """The comparison can fail: with the inputs it feeds each layer shifted by one step, nearly every layer's
    output differs from onnxruntime's."""
    import support.qdq_layers as qdq_layers

    real = qdq_layers._dequantized
    monkeypatch.setattr(qdq_layers, "_dequantized", lambda q, scale, zero: real(q + 1, scale, zero))
    path, _ = _qdq_model("mobilenet_v2_035", tmp_path)
    layers = compare_layers(path, _inputs(11, 1, _shape("mobilenet_v2_035"))[0], tmp_path)
    assert np.mean([layer.equal < 0.99 for layer in layers]) > 0.9
