"""nn.layer_norm against onnxruntime: ONNX LayerNormalization models (onnx.helper) through the ONNX front
door, compiled to C, compared with onnxruntime without graph optimizations. onnxruntime computes the
variance in one pass (E[x^2] - mean^2) and we in two, so outputs agree within 1e-5 of their magnitude,
not bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tvm", reason="apache-tvm is not installed (pip install -r requirements-test.txt)")
import onnx  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from support.c_harness import compile_and_run  # noqa: E402
from support.ort_oracle import oracle_session  # noqa: E402

from micro_relay.frontend import load_model  # noqa: E402
from micro_relay.passes import run_pipeline  # noqa: E402


def layer_norm_onnx(shape, axis=-1, epsilon=1e-5, bias=True, seed=0) -> onnx.ModelProto:
    rng = np.random.default_rng(seed)
    normalized = shape[axis:]
    inits = [numpy_helper.from_array(rng.standard_normal(normalized).astype(np.float32), "gamma")]
    names = ["x", "gamma"]
    if bias:
        inits.append(numpy_helper.from_array(rng.standard_normal(normalized).astype(np.float32), "beta"))
        names.append("beta")
    node = helper.make_node("LayerNormalization", names, ["y"], axis=axis, epsilon=epsilon)
    graph = helper.make_graph([node], "layer_norm", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


CASES = {
    "transformer tokens [1,10,64]": dict(shape=(1, 10, 64)),
    "ViT-tiny tokens [1,197,192]": dict(shape=(1, 197, 192), epsilon=1e-6),
    "two trailing axes of a 4-D tensor": dict(shape=(2, 3, 4, 5), axis=2),
    "every axis, no bias": dict(shape=(4, 16), axis=0, bias=False),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_layer_norm_matches_onnxruntime(case, tmp_path):
    path = tmp_path / "layer_norm.onnx"
    onnx.save(layer_norm_onnx(**case), path)
    graph = run_pipeline(load_model(path, io_layout="nchw"))
    assert [n.op for n in graph.nodes] == ["nn.layer_norm"]
    rng = np.random.default_rng(1)
    inputs = [(rng.standard_normal(case["shape"]) * 3 + 1).astype(np.float32) for _ in range(2)]
    got = compile_and_run(graph, [[x] for x in inputs], tmp_path / "c")
    session = oracle_session(path)
    for (ours,), x in zip(got, inputs):
        want = session.run(None, {"x": x})[0]
        np.testing.assert_allclose(ours, want, rtol=1e-5, atol=1e-5 * float(np.max(np.abs(want))))
