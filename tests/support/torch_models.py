"""PyTorch networks the ONNX/PyTorch frontend tests compile: seeded weights, batch-norm statistics that are
not the identity, and the shapes MCU models use (an MLP, a CNN with batch norm and a residual add, a
depthwise-separable keyword-spotting net, pooling + softmax) and the activations whose integer kernels fix
their output scale (tanh and sigmoid hidden layers, SiLU, a squeeze-excite block, a softmax head). Each
entry: (name, constructor, input shape, is a classifier)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

torch = __import__("pytest").importorskip("torch")
nn = torch.nn


def _randomize_batch_norms(module: nn.Module, seed: int) -> nn.Module:
    g = torch.Generator().manual_seed(seed)
    for m in module.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            m.running_mean.copy_(torch.randn(m.num_features, generator=g) * 0.1)
            m.running_var.copy_(torch.rand(m.num_features, generator=g) + 0.5)
            m.weight.data.copy_(torch.rand(m.num_features, generator=g) + 0.5)
            m.bias.data.copy_(torch.randn(m.num_features, generator=g) * 0.1)
    return module.eval()


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU(), nn.Linear(16, 10))

    def forward(self, x):
        return self.net(x)


class ResidualCNN(nn.Module):
    """conv-bn-relu, a residual block (conv-bn-relu-conv-bn + skip), max pool, strided conv, global pool."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU())
        self.block = nn.Sequential(nn.Conv2d(8, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
                                   nn.Conv2d(8, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8))
        self.down = nn.Sequential(nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU())
        self.head = nn.Linear(16, 10)

    def forward(self, x):
        x = self.stem(x)
        x = torch.relu(x + self.block(x))
        x = self.down(x)
        x = torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1)
        return self.head(x)


class DSKWS(nn.Module):
    """A DS-CNN keyword spotter in miniature: strided stem, depthwise-separable blocks, average pool."""

    def __init__(self):
        super().__init__()
        layers = [nn.Conv2d(1, 16, (10, 4), stride=2, padding=(5, 1)), nn.BatchNorm2d(16), nn.ReLU()]
        for _ in range(2):
            layers += [nn.Conv2d(16, 16, 3, padding=1, groups=16, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
                       nn.Conv2d(16, 16, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU()]
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Linear(16, 12)

    def forward(self, x):
        x = self.features(x)
        x = nn.functional.avg_pool2d(x, x.shape[2:])
        return self.classifier(torch.flatten(x, 1))


class PoolSoftmax(nn.Module):
    """Average and max pooling (with padding), a flatten of a multi-pixel map, and softmax."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.fc = nn.Linear(8 * 4 * 4, 6)

    def forward(self, x):
        x = nn.functional.avg_pool2d(torch.relu(self.conv1(x)), 2)
        x = nn.functional.max_pool2d(torch.relu(self.conv2(x)), 3, stride=2, padding=1)
        return torch.softmax(self.fc(torch.flatten(x, 1)), dim=-1)


class Conv1dAudio(nn.Module):
    """1-D convolutions over time (features as channels), a depthwise 1-D conv, max pooling, a mean over time."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv1d(8, 16, 5, stride=2, padding=2), nn.BatchNorm1d(16), nn.ReLU(),
                                      nn.Conv1d(16, 16, 3, padding=1, groups=16), nn.ReLU(), nn.MaxPool1d(2))
        self.classifier = nn.Linear(16, 4)

    def forward(self, x):
        return self.classifier(torch.mean(self.features(x), dim=2))


class TanhSigmoidMLP(nn.Module):
    """Hidden layers through tanh and sigmoid: integer kernels whose output scales (1/128, 1/256) are fixed."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(64, 32), nn.Tanh(), nn.Linear(32, 16), nn.Sigmoid(), nn.Linear(16, 10))

    def forward(self, x):
        return self.net(x)


class SqueezeExcite(nn.Module):
    """x * sigmoid(fc(relu(fc(avgpool(x))))): a per-channel gate multiplied into the feature map."""

    def __init__(self, channels: int, reduced: int):
        super().__init__()
        self.fc1 = nn.Linear(channels, reduced)
        self.fc2 = nn.Linear(reduced, channels)

    def forward(self, x):
        s = torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1)
        s = torch.sigmoid(self.fc2(torch.relu(self.fc1(s))))
        return x * s.view(s.shape[0], s.shape[1], 1, 1)


class SqueezeExciteCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        self.se = SqueezeExcite(16, 4)
        self.down = nn.Sequential(nn.Conv2d(16, 16, 3, stride=2, padding=1), nn.ReLU())
        self.head = nn.Linear(16, 10)

    def forward(self, x):
        x = self.down(self.se(self.stem(x)))
        return self.head(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


class SiLUCNN(nn.Module):
    """x * sigmoid(x) after a conv, a depthwise conv and a pointwise conv (SiLU exports as Sigmoid, Mul)."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 12, 3, padding=1), nn.BatchNorm2d(12), nn.SiLU(),
                                      nn.Conv2d(12, 12, 3, padding=1, groups=12), nn.BatchNorm2d(12), nn.SiLU(),
                                      nn.Conv2d(12, 16, 1), nn.SiLU())
        self.head = nn.Linear(16, 8)

    def forward(self, x):
        return self.head(torch.flatten(nn.functional.adaptive_avg_pool2d(self.features(x), 1), 1))


class SoftmaxHead(nn.Module):
    """A classifier whose output is a softmax over ten classes (head weights scaled up, as a trained head's are,
    so that the classes are not all near 1/10)."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3, stride=2), nn.ReLU(), nn.Conv2d(8, 16, 3), nn.ReLU())
        self.head = nn.Linear(16, 10)
        with torch.no_grad():
            self.head.weight.mul_(8)

    def forward(self, x):
        x = torch.flatten(nn.functional.adaptive_avg_pool2d(self.features(x), 1), 1)
        return torch.softmax(self.head(x), dim=-1)


MODELS = {
    "mlp": (MLP, (1, 64), True),
    "residual_cnn": (ResidualCNN, (1, 3, 16, 16), True),
    "ds_kws": (DSKWS, (1, 1, 49, 10), True),
    "pool_softmax": (PoolSoftmax, (1, 3, 18, 18), True),
    "conv1d_audio": (Conv1dAudio, (1, 8, 40), True),
    "tanh_sigmoid_mlp": (TanhSigmoidMLP, (1, 64), True),
    "se_cnn": (SqueezeExciteCNN, (1, 3, 12, 12), True),
    "silu_cnn": (SiLUCNN, (1, 3, 12, 12), True),
    "softmax_head": (SoftmaxHead, (1, 1, 16, 16), True),
}


def build(name: str, seed: int = 0) -> tuple[nn.Module, tuple[int, ...], bool]:
    cls, shape, classifier = MODELS[name]
    torch.manual_seed(seed)
    return _randomize_batch_norms(cls(), seed), shape, classifier


def samples(shape, count: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(np.float32) for _ in range(count)]


def torch_outputs(module: nn.Module, inputs: list[np.ndarray]) -> list[np.ndarray]:
    with torch.no_grad():
        return [module(torch.from_numpy(x)).numpy() for x in inputs]


def export_onnx(module: nn.Module, shape, path: Path) -> Path:
    """Float ONNX with a static shape (the TorchScript exporter: no extra dependencies)."""
    import warnings

    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, (torch.zeros(shape),), buffer, input_names=["input"], output_names=["output"],
                          dynamo=False, opset_version=17)
    path.write_bytes(buffer.getvalue())
    return path


def to_nhwc(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(np.transpose(x, (0, 2, 3, 1))) if x.ndim == 4 else x
