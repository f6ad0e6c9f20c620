"""Real data that ships with a library: scikit-learn's digits (8x8 images, 1,797 samples, values 0..16).

Two small PyTorch networks, seeded and trained in a few seconds on a training split, are exported as float
ONNX and loaded by the ONNX frontend (`float_model`), quantized with a calibration split taken from the
training data, compiled to C and run on the held-out split:

    mlp: x[1,64] ─ dense 32 relu ─ dense 10 ─► logits
    cnn: x[1,8,8,1] ─ conv 3x3x8 relu ─ max_pool 2 ─ conv 3x3x16 relu ─ reshape ─ dense 10 ─► logits

The int8 C's top-1 accuracy must be within 1.0 percentage point of the float model's (run in the reference
interpreter), and the int8 C bit-exact with the reference interpreter on the quantized graph.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
datasets = pytest.importorskip("sklearn.datasets")

from micro_relay.frontend import load_model  # noqa: E402
from micro_relay.passes import run_pipeline  # noqa: E402
from micro_relay.quantize import QuantizeOptions, quantize_with_report  # noqa: E402
from micro_relay.reference import run  # noqa: E402

from support.torch_models import export_onnx  # noqa: E402

from .support import assert_c_matches_reference  # noqa: E402

TRAIN, CALIBRATION = 1200, 200  # the calibration split is the first 200 training images; the rest is held out


@pytest.fixture(scope="module")
def digits():
    data = datasets.load_digits()
    order = np.random.default_rng(0).permutation(len(data.target))
    x = (data.images[order] / 16.0).astype(np.float32)  # (N, 8, 8) in [0, 1]
    y = data.target[order]
    return x[:TRAIN], y[:TRAIN], x[TRAIN:], y[TRAIN:]


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden, self.out = torch.nn.Linear(64, 32), torch.nn.Linear(32, 10)

    def forward(self, x):  # x: (N, 1, 8, 8)
        return self.out(torch.relu(self.hidden(x.flatten(1))))


class CNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 16, 3, padding=1)
        self.fc = torch.nn.Linear(16 * 4 * 4, 10)

    def forward(self, x):
        x = torch.nn.functional.max_pool2d(torch.relu(self.conv1(x)), 2)
        return self.fc(torch.relu(self.conv2(x)).flatten(1))


def train(net: torch.nn.Module, x: np.ndarray, y: np.ndarray, epochs: int = 40) -> torch.nn.Module:
    """Adam, batches of 256, seeded; one thread (faster for nets this small, and deterministic)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        torch.manual_seed(0)
        for p in net.parameters():  # re-initialize under the seed, independent of construction order
            if p.dim() == 1:
                torch.nn.init.normal_(p, std=0.1)
            else:
                torch.nn.init.kaiming_uniform_(p, nonlinearity="relu")
        xs, ys = torch.from_numpy(x[:, None]), torch.from_numpy(y).long()
        opt = torch.optim.Adam(net.parameters(), lr=0.01)
        gen = torch.Generator().manual_seed(0)
        for _ in range(epochs):
            for batch in torch.randperm(len(ys), generator=gen).split(256):
                opt.zero_grad()
                torch.nn.functional.cross_entropy(net(xs[batch]), ys[batch]).backward()
                opt.step()
    finally:
        torch.set_num_threads(threads)
    return net.eval()


def float_model(net: torch.nn.Module, tmp_path: Path):
    """The float graph the compiler sees: the network exported as float ONNX (static shape (1, 1, 8, 8)) and
    loaded by the ONNX frontend, inputs stored NHWC (1, 8, 8, 1)."""
    return run_pipeline(load_model(export_onnx(net, (1, 1, 8, 8), tmp_path / "digits.onnx")))


@pytest.mark.parametrize("kind", ["mlp", "cnn"])
def test_int8_digits_within_one_point_of_float(kind, digits, tmp_path):
    x_train, y_train, x_test, y_test = digits
    start = time.perf_counter()
    net = train(MLP() if kind == "mlp" else CNN(), x_train, y_train)
    trained = time.perf_counter() - start
    graph = float_model(net, tmp_path)
    calibration = {graph.inputs[0]: x_train[:CALIBRATION].reshape(-1, 1, 1, 8, 8)}  # the model takes NCHW
    start = time.perf_counter()
    q, report = quantize_with_report(graph, calibration, QuantizeOptions())
    quantized = time.perf_counter() - start

    test_inputs = [[x.reshape(1, 8, 8, 1)] for x in x_test]
    float_top1 = np.array([run(graph, s)[0].argmax() for s in test_inputs])
    with torch.no_grad():  # the float graph is the trained network
        torch_top1 = net(torch.from_numpy(x_test[:, None])).argmax(1).numpy()
    assert (float_top1 == torch_top1).mean() >= 0.995
    out_dir = tmp_path / "c"
    compiled = assert_c_matches_reference(q, test_inputs, out_dir)
    int8_top1 = np.array([outs[0].argmax() for outs in compiled])
    float_acc, int8_acc = (float_top1 == y_test).mean(), (int8_top1 == y_test).mean()
    print(f"\n{kind}: trained in {trained:.1f} s, quantized (calibration + report) in {quantized:.2f} s; held-out "
          f"top-1 float {100 * float_acc:.2f}% int8 C {100 * int8_acc:.2f}% on {len(y_test)} images\n"
          + report.format())
    assert float_acc > 0.9, "the float network did not train"
    assert abs(int8_acc - float_acc) <= 0.01
