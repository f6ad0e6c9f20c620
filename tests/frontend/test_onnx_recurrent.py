"""ONNX LSTM and GRU (float32) compiled through the Relax front door (cut out and spliced back as nn.lstm and
nn.gru: frontend/relax/onnx_recurrent.py), against onnxruntime with graph optimizations off on models made
with onnx.helper, and against torch on small keyword-spotting models exported with torch.onnx.export (49
frames of 10 features). onnxruntime does not run layout 1 (batch-major) recurrent nodes, so that case is
checked against onnx's own reference evaluator. Tolerance 1e-4 relative (1e-5 absolute): the summation
order and libm's expf/tanhf differ between the runtimes. Unsupported forms are refused in one line.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -r requirements-test.txt)")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from micro_relay.errors import CompileError  # noqa: E402
from micro_relay.frontend import load_model  # noqa: E402
from micro_relay.passes import run_pipeline  # noqa: E402
from support.c_harness import compile_and_run  # noqa: E402
from support.ort_oracle import oracle_session  # noqa: E402

_OUT = {"LSTM": ("Y", "Y_h", "Y_c"), "GRU": ("Y", "Y_h")}


def recurrent_model(op="LSTM", time=5, batch=1, size=3, hidden=4, layout=0, outputs=None, bias=True,
                    initial=False, seed=0, inputs_as_graph_inputs=(), **attrs):
    """One LSTM or GRU node over input X, weights as initializers (or graph inputs, when named)."""
    rng = np.random.default_rng(seed)
    gates = 4 if op == "LSTM" else 3
    x_shape = [time, batch, size] if layout == 0 else [batch, time, size]
    state = [1, batch, hidden] if layout == 0 else [batch, 1, hidden]
    values = {"W": rng.standard_normal((1, gates * hidden, size)) * 0.6,
              "R": rng.standard_normal((1, gates * hidden, hidden)) * 0.6}
    if bias:
        values["B"] = rng.standard_normal((1, 2 * gates * hidden)) * 0.5
    if initial:
        values["initial_h"] = rng.standard_normal(state)
        if op == "LSTM":
            values["initial_c"] = rng.standard_normal(state)
    for k in ("sequence_lens", "P"):
        if k in attrs:
            values[k] = attrs.pop(k)
    slots = ["X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"]
    names = [n if n == "X" or n in values else "" for n in slots]
    while not names[-1]:
        names.pop()
    outputs = outputs or _OUT[op]
    y_shapes = {"Y": [time, 1, batch, hidden] if layout == 0 else [batch, time, 1, hidden], "Y_h": state,
                "Y_c": state}
    node = helper.make_node(op, names, list(outputs), hidden_size=hidden, layout=layout, **attrs)
    initializers = [numpy_helper.from_array(np.asarray(v, np.int32 if k == "sequence_lens" else np.float32), k)
                    for k, v in values.items() if k not in inputs_as_graph_inputs]
    graph_inputs = [helper.make_tensor_value_info("X", TensorProto.FLOAT, x_shape)]
    graph_inputs += [helper.make_tensor_value_info(k, TensorProto.FLOAT, list(values[k].shape))
                     for k in inputs_as_graph_inputs]
    graph = helper.make_graph([node], "recurrent", graph_inputs,
                              [helper.make_tensor_value_info(o, TensorProto.FLOAT, y_shapes[o]) for o in outputs if o],
                              initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    model.ir_version = 8
    return model


def _compile_and_run(path: Path, x: np.ndarray, tmp_path: Path, io_layout="nchw") -> list[np.ndarray]:
    graph = run_pipeline(load_model(path, io_layout=io_layout))
    return compile_and_run(graph, [[x]], tmp_path / "out")[0]


def _assert_close(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.reshape(w.shape), w, rtol=1e-4, atol=1e-5)


CASES = {
    "lstm_defaults_no_bias": dict(bias=False),
    "lstm_bias_initial_states": dict(initial=True),
    "lstm_kws_t49_i10_h32": dict(time=49, size=10, hidden=32),
    "lstm_batch3_y_only": dict(batch=3, outputs=("Y",)),
    "lstm_states_only": dict(outputs=("", "Y_h", "Y_c")),
    "lstm_one_unit": dict(hidden=1, size=1),
    "lstm_zero_peepholes": dict(P=np.zeros((1, 12))),
    "lstm_full_sequence_lens": dict(batch=2, sequence_lens=np.array([5, 5])),
    "gru_defaults": dict(op="GRU"),
    "gru_linear_before_reset": dict(op="GRU", linear_before_reset=1, initial=True),
    "gru_kws_t49_i10_h32_batch2": dict(op="GRU", time=49, size=10, hidden=32, batch=2),
    "gru_no_bias_y_h_only": dict(op="GRU", bias=False, outputs=("", "Y_h")),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("io_layout", ["nchw", "nhwc"])
def test_recurrent_matches_onnxruntime(name, io_layout, tmp_path):
    model = recurrent_model(**CASES[name])
    path = tmp_path / "model.onnx"
    onnx.save(model, path)
    shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32) * 2
    want = oracle_session(path).run(None, {"X": x})
    # layout 0: Y [T, 1, B, H] stored channels-last is [T, B, H, 1], the same bytes
    _assert_close(_compile_and_run(path, x, tmp_path, io_layout), want)


@pytest.mark.parametrize("op", ["LSTM", "GRU"])
def test_batch_major_layout_matches_onnx_reference(op, tmp_path):
    from onnx.reference import ReferenceEvaluator

    model = recurrent_model(op, layout=1, batch=2, initial=True)
    path = tmp_path / "model.onnx"
    onnx.save(model, path)
    x = np.random.default_rng(2).standard_normal((2, 5, 3)).astype(np.float32)
    _assert_close(_compile_and_run(path, x, tmp_path), ReferenceEvaluator(model).run(None, {"X": x}))


@pytest.mark.parametrize("case, message", [
    (dict(direction="bidirectional"), "direction"),
    (dict(direction="reverse"), "direction"),
    (dict(clip=3.0), "clip"),
    (dict(activations=["Sigmoid", "Relu", "Tanh"]), "activations"),
    (dict(input_forget=1), "input-forget"),
    (dict(P=np.ones((1, 12))), "peephole"),
    (dict(batch=2, sequence_lens=np.array([5, 3])), "sequence_lens"),
    (dict(inputs_as_graph_inputs=("W",)), "W must be a constant"),
])
def test_unsupported_recurrent_forms_are_refused(case, message, tmp_path):
    path = tmp_path / "model.onnx"
    onnx.save(recurrent_model(**case), path)
    with pytest.raises(CompileError, match=message) as info:
        run_pipeline(load_model(path))
    assert "\n" not in str(info.value)


# -- PyTorch keyword models ---------------------------------------------------------------------------------

torch = pytest.importorskip("torch")


class KeywordRnn(torch.nn.Module):
    """49 frames of 10 features -> recurrent layers -> 12 keyword scores (from the last hidden state, or from
    the mean over time)."""

    def __init__(self, cell, layers=1, mean=False):
        super().__init__()
        self.rnn = cell(10, 32, num_layers=layers, batch_first=True)
        self.fc = torch.nn.Linear(32, 12)
        self.mean = mean

    def forward(self, x):
        y, state = self.rnn(x)
        if self.mean:
            return self.fc(y.mean(dim=1))
        h = state[0] if isinstance(state, tuple) else state
        return self.fc(h[-1:].squeeze(0))


@pytest.mark.filterwarnings("ignore")  # the exporter's notes on tracing and batch sizes
@pytest.mark.parametrize("cell, layers, mean", [("LSTM", 1, False), ("LSTM", 2, True), ("GRU", 1, True),
                                                ("GRU", 2, False)])
def test_torch_keyword_model_matches_torch(cell, layers, mean, tmp_path):
    torch.manual_seed(layers)
    module = KeywordRnn(getattr(torch.nn, cell), layers, mean).eval()
    x = torch.randn(1, 49, 10)
    buffer = io.BytesIO()
    torch.onnx.export(module, (x,), buffer, input_names=["input"], output_names=["scores"], opset_version=14,
                      dynamo=False)
    path = tmp_path / "model.onnx"
    path.write_bytes(buffer.getvalue())
    with torch.no_grad():
        want = module(x).numpy()
    _assert_close(_compile_and_run(path, x.numpy(), tmp_path, "nhwc"), [want])


class KeywordCrnn(torch.nn.Module):
    """A convolution over time (NCW), then a GRU over its output frames: the recurrent input comes from a
    layer the lowering stores channels-last."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv1d(10, 16, 3, padding=1)
        self.rnn = torch.nn.GRU(16, 24, batch_first=True)
        self.fc = torch.nn.Linear(24, 12)

    def forward(self, x):
        _, h = self.rnn(torch.relu(self.conv(x)).permute(0, 2, 1))
        return self.fc(h.squeeze(0))


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("io_layout", ["nhwc", "nchw"])
def test_torch_conv_then_gru_matches_torch(io_layout, tmp_path):
    torch.manual_seed(0)
    module = KeywordCrnn().eval()
    x = torch.randn(1, 10, 49)
    buffer = io.BytesIO()
    torch.onnx.export(module, (x,), buffer, input_names=["input"], output_names=["scores"], opset_version=14,
                      dynamo=False)
    path = tmp_path / "model.onnx"
    path.write_bytes(buffer.getvalue())
    with torch.no_grad():
        want = module(x).numpy()
    _assert_close(_compile_and_run(path, x.numpy(), tmp_path, io_layout), [want])
