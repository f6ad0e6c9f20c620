"""Post-training int8 (quantize_graph, min-max calibration, per-channel weights) of the mobile architectures,
the keyword-spotting transformer and the U-Net at 64x64: top-1 agreement of the int8 graph with the float
torch module on 64 held-out seeded inputs, after calibrating on 32 other seeded inputs (U-Net: agreement of
the per-pixel argmax over its 4 classes).

Random weights alone make a useless yardstick: seeded networks with random batch-norm statistics map every
noise input to the same class (measured: 64 of 64 on one class for MobileNetV2-0.35, MobileNetV3-small,
ShuffleNetV2 and SqueezeNet), so agreement would be 100% whatever the quantizer did. So, as a trained network
has, each batch norm holds the statistics of its input measured on the calibration data (its affine
parameters stay random), and the classifier's input is standardized per feature on the calibration data,
which spreads the float top-1 over all classes. The float networks remain input-insensitive compared with
trained ones (the class-dependent part of the pooled features is a small fraction of their range), so int8
agreement sits well below a trained network's; the bounds are the measured values less a margin.

SqueezeNet is left out: it has no batch norm, and with seeded Kaiming weights a few inputs give logits some
300 times the typical ones, so min-max ranges leave the typical input a handful of steps and the measured
agreement (3.1%) says nothing about the quantizer.

GELU and LayerNorm have no int8 kernel ("no int8 kernel for ops nn.gelu, nn.layer_norm"): the transformer
keeps them in float (keep_float) with the reshapes between them; its convolution, matmuls, softmax, adds and
mean run in int8. MICRO_RELAY_ARCH_INT8=all adds MobileNetV2-0.35 (about 30 s).
"""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -r requirements-test.txt)")
from support import mobile_architectures, small_architectures, torch_models  # noqa: E402

import micro_relay  # noqa: E402
from micro_relay.passes import run_pipeline  # noqa: E402
from micro_relay.quantize import QuantizeOptions, quantize_graph  # noqa: E402
from micro_relay.reference.interpreter import run  # noqa: E402

torch = torch_models.torch
nn = torch.nn
KEEP_FLOAT = {"kws_transformer": ("nn.gelu", "nn.layer_norm")}
# measured (seeded, so repeatable): 82.8%, 57.8%, 100%, 95.7% per pixel, 46.9%
BOUNDS = {"mobilenet_v3_small": 0.7, "shufflenet_v2_x0_5": 0.45, "kws_transformer": 0.9, "unet": 0.9,
          "mobilenet_v2_035": 0.35}
NAMES = ["mobilenet_v3_small", "shufflenet_v2_x0_5", "kws_transformer", "unet"]
if os.environ.get("MICRO_RELAY_ARCH_INT8") == "all":
    NAMES += ["mobilenet_v2_035"]


def _samples(shape, seed: int, count: int) -> list[np.ndarray]:
    return list(np.random.default_rng(seed).standard_normal((count, *shape)).astype(np.float32))


def _calibrated(module: nn.Module, samples: list[np.ndarray], classifier: bool) -> nn.Module:
    """Batch-norm statistics measured on the samples; the classifier's input standardized on them."""
    norms = [m for m in module.modules() if isinstance(m, nn.BatchNorm2d)]
    for m in norms:
        m.reset_running_stats()
        m.momentum = None  # a cumulative average: the statistics of all samples
        m.train()
    seen = []
    last = [m for m in module.modules() if isinstance(m, (nn.Linear, nn.Conv2d))][-1]
    hook = last.register_forward_pre_hook(lambda m, args: seen.append(args[0].detach()))
    with torch.no_grad():
        for x in samples:
            module(torch.from_numpy(x))
    hook.remove()
    module.eval()
    if classifier:
        features = torch.cat(seen)
        axes = [0, 2, 3] if features.dim() == 4 else list(range(features.dim() - 1))
        mean, std = features.mean(axes), features.std(axes) + 1e-6
        with torch.no_grad():
            weight = last.weight.reshape(last.weight.shape[0], -1) / std
            last.bias.copy_(last.bias - weight @ mean)
            last.weight.copy_(weight.reshape(last.weight.shape))
    return module


@pytest.mark.parametrize("name", NAMES)
def test_int8_architecture_agrees_with_float(name):
    small = name in small_architectures.ARCHITECTURES
    shape = small_architectures.input_shape(name, 64) if small else (1, 3, 64, 64)
    calibration, held_out = _samples(shape, 0, 32), _samples(shape, 1, 64)
    module = (small_architectures if small else mobile_architectures).build(name)
    module = _calibrated(module, calibration, classifier=name != "unet")
    graph = run_pipeline(micro_relay.from_torch(module, (torch.zeros(shape),), io_layout="nchw"))
    q = quantize_graph(graph, [[x] for x in calibration], QuantizeOptions(keep_float=KEEP_FLOAT.get(name, ())))
    kept = {n.op for n in q.nodes if q.type_of(n.outputs[0]).dtype.is_float} - {"qnn.dequantize"}
    allowed = set(KEEP_FLOAT[name]) | {"reshape"} if name in KEEP_FLOAT else set()
    assert kept <= allowed, f"float ops left: {sorted(kept)}"
    want = torch_models.torch_outputs(module, held_out)
    got = [run(q, [x])[0].reshape(w.shape) for x, w in zip(held_out, want)]
    axis = 1 if name == "unet" else -1
    agreement = float(np.mean([(g.argmax(axis) == w.argmax(axis)).mean() for g, w in zip(got, want)]))
    classes = len(np.unique([w.argmax(axis) for w in want]))
    print(f"\n{name}: int8 agrees with float on {100 * agreement:.1f}% ({classes} float classes seen)")
    assert classes > 1, "the float network predicts one class for every input"
    assert agreement >= BOUNDS[name], f"{name}: int8 agreement {agreement:.3f} below {BOUNDS[name]}"
