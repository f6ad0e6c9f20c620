"""Unary math that TFLite Micro does not run, against torch and onnxruntime: TFLite GELU (TFLite Micro has no
GELU kernel), single-op ONNX models of Abs, Neg, Exp, Log, Sqrt, Floor, Ceil, Round, Erf, Gelu, HardSwish and
Elu through the Relax frontend, and the IR ops only ONNX reaches (erf, nn.softplus, nn.hard_sigmoid, nn.elu
with an alpha).

IEEE-only ops (abs, neg, sqrt, floor, ceil, round) match the oracle bit for bit. Ops built on a libm function
match within rtol 1e-5 and atol 1e-6 (the outputs' scale is about 1): onnxruntime evaluates exp, log, erf and
tanh with its own vectorized approximations, a few ulps from libm's, and torch is run in float64 (its float32
vectorized erf is further from the true GELU than float32 libm is, by 1e-6 near x = -3.5).
"""

from __future__ import annotations

import numpy as np
import pytest

from micro_relay.frontend.tflite import read_tflite
from micro_relay.ir.graph import Graph, Node, Tensor
from micro_relay.ir.types import DType, TensorType
from micro_relay.ir.verify import verify
from micro_relay.passes import run_pipeline
from micro_relay.reference import run as reference_run
from support.c_harness import compile_and_run
from support.tflite_unary_models import float_inputs, unary_math_model

torch = pytest.importorskip("torch")
EXACT = ("Abs", "Neg", "Sqrt", "Floor", "Ceil", "Round")


def _close(ours, want, exact: bool, what: str):
    if exact:
        np.testing.assert_array_equal(ours, want, err_msg=what)
    else:
        np.testing.assert_allclose(ours, want, rtol=1e-5, atol=1e-6, err_msg=what)


@pytest.mark.parametrize("approximate", [False, True], ids=["erf", "tanh"])
def test_tflite_gelu_matches_torch(approximate, tmp_path):
    model = unary_math_model("GELU", "float32", (1, 4, 4, 64), approximate=approximate)
    graph = run_pipeline(read_tflite(model, "gelu.tflite"))
    x = float_inputs((1, 4, 4, 64), np.random.default_rng(3), 4.0)
    x[0, 0, 0, :8] = [np.nan, np.inf, -np.inf, 0.0, -0.0, -30.0, 30.0, -5.5]
    ((ours,),) = compile_and_run(graph, [[x]], tmp_path)
    want = torch.nn.functional.gelu(torch.from_numpy(x).double(), approximate="tanh" if approximate else "none")
    want = want.float().numpy()
    _close(ours, want, False, "compiled C vs torch")
    _close(reference_run(graph, [x])[0], ours, False, "reference vs compiled C")


# -- ONNX through the Relax frontend, onnxruntime as the oracle ------------------------------------------

ONNX_OPS = {"Abs": {}, "Neg": {}, "Exp": {}, "Log": {}, "Sqrt": {}, "Floor": {}, "Ceil": {}, "Round": {},
            "Erf": {}, "Gelu": {}, "Gelu tanh": {"approximate": "tanh"}, "HardSwish": {}, "Elu": {"alpha": 0.7}}
# the IR ops each becomes; the importer decomposes HardSwish (the relu6 fuses into the add) and Elu
ONNX_NODES = {"Neg": ["negative"], "Gelu": ["nn.gelu"], "HardSwish": ["add", "multiply", "multiply"],
              "Elu": ["exp", "subtract", "multiply", "nn.relu", "add"]}


@pytest.mark.parametrize("name", ONNX_OPS)
def test_onnx_op_matches_onnxruntime(name, tmp_path):
    pytest.importorskip("tvm", reason="apache-tvm is not installed")
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    from micro_relay.compiler import prepare_graph
    from support.ort_oracle import oracle_session

    op = name.split()[0]
    shape = [4, 64]
    node = helper.make_node(op, ["input"], ["output"], **ONNX_OPS[name])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("input", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("output", TensorProto.FLOAT, shape)])
    path = tmp_path / f"{op}.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)]), path)
    x = float_inputs(tuple(shape), np.random.default_rng(1), 6.0)
    if op not in EXACT:  # specials are IEEE's business; the vectorized oracles treat them their own way
        x = (np.random.default_rng(1).standard_normal(shape) * 3.0).astype(np.float32)
        if op in ("Log", "Sqrt"):
            x = np.abs(x) + np.float32(1e-3)
    ours_graph = prepare_graph(path)
    assert [n.op for n in ours_graph.nodes] == ONNX_NODES.get(op, [op.lower()])
    ((ours,),) = compile_and_run(ours_graph, [[x]], tmp_path / "out")
    want = oracle_session(path).run(None, {"input": x})[0]
    _close(ours, want, op in EXACT, f"compiled C vs onnxruntime ({name})")


# -- the IR ops only ONNX reaches, torch as the oracle ---------------------------------------------------

IR_OPS = {
    "erf": ({}, lambda t: torch.erf(t)),
    "nn.softplus": ({}, lambda t: torch.nn.functional.softplus(t)),
    "nn.hard_sigmoid": ({"alpha": 0.2, "beta": 0.5}, lambda t: torch.clamp(0.2 * t + 0.5, 0.0, 1.0)),
    "nn.hard_sigmoid torch": ({"alpha": 1 / 6, "beta": 0.5}, lambda t: torch.nn.functional.hardsigmoid(t)),
    "nn.elu alpha 0.5": ({"alpha": 0.5}, lambda t: torch.nn.functional.elu(t, 0.5)),
    "nn.hard_swish": ({}, lambda t: torch.nn.functional.hardswish(t)),
    "nn.gelu": ({"approximate": False}, lambda t: torch.nn.functional.gelu(t)),
}


@pytest.mark.parametrize("name", IR_OPS)
def test_ir_op_matches_torch(name, tmp_path):
    attrs, oracle = IR_OPS[name]
    op = name.split()[0]
    t = TensorType((2, 8, 8, 16), DType.FLOAT32)
    graph = verify(Graph({"x": Tensor("x", t), "y": Tensor("y", t)}, (Node(op, ("x",), ("y",), attrs),), ("x",),
                         ("y",)))
    x = (np.random.default_rng(4).standard_normal(t.shape) * 5.0).astype(np.float32)
    x.flat[:4] = [0.0, -0.0, 25.0, -25.0]
    ((ours,),) = compile_and_run(graph, [[x]], tmp_path)
    want = oracle(torch.from_numpy(x).double()).float().numpy()
    _close(ours, want, False, f"compiled C vs torch ({name})")
    _close(reference_run(graph, [x])[0], ours, False, f"reference vs compiled C ({name})")
