"""Stateful TFLite models (SVDF, resource variables) and their check over several consecutive invokes.

`check_invokes(model, samples)` runs the samples one after another in ONE instance of each: the compiled C
(one host process: its static state carries over), the reference interpreter (a Session) and TFLite Micro
(one interpreter, which keeps its variables between invokes), and asserts that every invoke agrees; TFLite
Micro is the oracle. Builders return model bytes made with our TFLite writer; constant data comes from a
numpy generator seeded by the caller.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from micro_relay.compiler import compile_graph, write_output
from micro_relay.frontend.tflite import read_tflite
from micro_relay.frontend.tflite.writer import TFLiteBuilder
from micro_relay.passes import run_pipeline
from micro_relay.reference import Session

from .c_harness import build_host_program, run_host_program
from .model_check import Comparison, assert_matches, random_inputs
from .tflm_oracle import tflm_invokes


def compare_invokes(model: bytes, samples=None, invokes: int = 5, seed: int = 0) -> Comparison:
    graph = run_pipeline(read_tflite(model, "test model"))
    if samples is None:
        rng = np.random.default_rng(seed)
        samples = [random_inputs(graph, rng) for _ in range(invokes)]
    shapes = [graph.type_of(n).shape for n in graph.inputs]
    samples = [[np.asarray(x).reshape(s) for x, s in zip(sample, shapes)] for sample in samples]
    with tempfile.TemporaryDirectory() as tmp:
        compiled_model = compile_graph(graph, "model", "test model")
        write_output(compiled_model, Path(tmp))
        exe = build_host_program(Path(tmp), "model")
        types = [(graph.type_of(n).dtype.numpy, graph.type_of(n).shape) for n in graph.outputs]
        compiled = run_host_program(exe, samples, types)
    session = Session(graph)
    reference = [session.invoke([x.copy() for x in sample]) for sample in samples]
    tflm = tflm_invokes(model, [[x.copy() for x in sample] for sample in samples], len(graph.outputs))
    return Comparison(compiled, reference, tflm, compiled_model.plan.arena_bytes)


def check_invokes(model: bytes, samples=None, invokes: int = 5, seed: int = 0, float_rtol: float = 1e-5) -> None:
    assert_matches(compare_invokes(model, samples, invokes, seed), float_rtol)


# -- resource variables -----------------------------------------------------------------------------------

def _q(dtype, scale, zero_point) -> dict:
    return {} if dtype == "float32" else {"scale": scale, "zero_point": zero_point}


def accumulator(shape=(1, 4), dtype="float32", init=None, scale=0.05, zero_point=3) -> bytes:
    """y = v + x; v = y (a running sum), v initialized by CALL_ONCE to `init` (None: no CALL_ONCE, so v
    starts as TFLite Micro's allocation fills it)."""
    q = _q(dtype, scale, zero_point)
    b = TFLiteBuilder()
    if init is not None:
        sub = TFLiteBuilder()
        sub.tensor("h", (), "resource")
        sub.tensor("c", shape, dtype, data=np.asarray(init).reshape(shape), **q)
        sub.op("VAR_HANDLE", [], ["h"], shared_name="acc").op("ASSIGN_VARIABLE", ["h", "c"], [])
        sub.inputs().outputs()
        b.subgraph(sub)
    x = b.tensor("x", shape, dtype, **q)
    b.tensor("h", (), "resource")
    b.tensor("v", shape, dtype, **q)
    y = b.tensor("y", shape, dtype, **q)
    if init is not None:
        b.op("CALL_ONCE", [], [], init_subgraph_index=1)
    b.op("VAR_HANDLE", [], ["h"], shared_name="acc").op("READ_VARIABLE", ["h"], ["v"])
    b.op("ADD", ["v", "x"], ["y"]).op("ASSIGN_VARIABLE", ["h", "y"], [])
    return b.inputs(x).outputs(y).build()


def read_assign_read(shape=(1, 8), init=1.5) -> bytes:
    """old = v; v = x * x; new = v; y = old + new (the read after the assign sees x * x, the one before the
    previous invoke's)."""
    b = TFLiteBuilder()
    sub = TFLiteBuilder()
    sub.tensor("h", (), "resource")
    sub.tensor("c", shape, "float32", data=np.full(shape, init))
    sub.op("VAR_HANDLE", [], ["h"], shared_name="v").op("ASSIGN_VARIABLE", ["h", "c"], []).inputs().outputs()
    b.subgraph(sub)
    x = b.tensor("x", shape, "float32")
    for name in ("h", "h2"):
        b.tensor(name, (), "resource")
    for name in ("old", "sq", "new", "y"):
        b.tensor(name, shape, "float32")
    b.op("CALL_ONCE", [], [], init_subgraph_index=1)
    b.op("VAR_HANDLE", [], ["h"], shared_name="v").op("READ_VARIABLE", ["h"], ["old"])
    b.op("MUL", ["x", "x"], ["sq"]).op("ASSIGN_VARIABLE", ["h", "sq"], [])
    b.op("VAR_HANDLE", [], ["h2"], shared_name="v").op("READ_VARIABLE", ["h2"], ["new"])
    b.op("ADD", ["old", "new"], ["y"])
    return b.inputs(x).outputs("y").build()


def two_variables(shape=(1, 6)) -> bytes:
    """a = a + x; b = b + a (both assigned in one invoke); outputs a and b. a starts at 1, b at TFLite Micro's
    default (0)."""
    b = TFLiteBuilder()
    sub = TFLiteBuilder()
    sub.tensor("h", (), "resource")
    sub.tensor("one", shape, "float32", data=np.ones(shape))
    sub.op("VAR_HANDLE", [], ["h"], shared_name="a").op("ASSIGN_VARIABLE", ["h", "one"], []).inputs().outputs()
    b.subgraph(sub)
    x = b.tensor("x", shape, "float32")
    for name in ("ha", "hb"):
        b.tensor(name, (), "resource")
    for name in ("a", "b", "a1", "b1"):
        b.tensor(name, shape, "float32")
    b.op("CALL_ONCE", [], [], init_subgraph_index=1)
    b.op("VAR_HANDLE", [], ["ha"], shared_name="a").op("VAR_HANDLE", [], ["hb"], shared_name="b")
    b.op("READ_VARIABLE", ["ha"], ["a"]).op("READ_VARIABLE", ["hb"], ["b"])
    b.op("ADD", ["a", "x"], ["a1"]).op("ADD", ["b", "a1"], ["b1"])
    b.op("ASSIGN_VARIABLE", ["ha", "a1"], []).op("ASSIGN_VARIABLE", ["hb", "b1"], [])
    return b.inputs(x).outputs("a1", "b1").build()


# -- SVDF -------------------------------------------------------------------------------------------------

def svdf_model(batch=1, input_size=8, units=4, rank=1, memory=10, dtype="float32", state_dtype="int16",
               activation="NONE", has_bias=True, seed=0, in_scale=0.05, in_zp=0, state_scale=None, out_scale=None,
               out_zp=0, wt_scale=None) -> bytes:
    """One SVDF layer with random weights. int8: int8 input/weights_feature/output, `state_dtype` weights_time
    and state (zero point 0, as converters write them), an int32 bias of scale state_s * wt_s; the state and
    output scales default to ones that keep typical values inside their types."""
    rng = np.random.default_rng(seed)
    filters = units * rank
    b = TFLiteBuilder()
    if dtype == "float32":
        x = b.tensor("x", (batch, input_size), dtype)
        wf = b.tensor("wf", (filters, input_size), dtype, data=rng.standard_normal((filters, input_size)) * 0.3)
        wt = b.tensor("wt", (filters, memory), dtype, data=rng.standard_normal((filters, memory)) * 0.3)
        bias = b.tensor("b", (units,), dtype, data=rng.standard_normal(units)) if has_bias else None
        state = b.tensor("state", (batch, filters * memory), dtype, variable=True)
        y = b.tensor("y", (batch, units), dtype)
    else:
        big = 32767 if state_dtype == "int16" else 127
        wt_scale = wt_scale or 1.0 / big
        # feature dots of ~74 * 73 * sqrt(I) codes, scaled to about a quarter of the state's range
        feature = in_scale * 0.01 * 74 * 73 * np.sqrt(input_size)
        state_scale = state_scale or feature / (big / 4)
        # a unit sums memory * rank products of ~0.2 big^2 codes of random sign: aim at ~40 output codes
        out_scale = out_scale or state_scale * wt_scale * 0.2 * big * big * np.sqrt(memory * rank) / 40
        x = b.tensor("x", (batch, input_size), "int8", scale=in_scale, zero_point=in_zp)
        wf = b.tensor("wf", (filters, input_size), "int8", data=rng.integers(-127, 128, (filters, input_size)),
                      scale=0.01, zero_point=0)
        wt = b.tensor("wt", (filters, memory), state_dtype, data=rng.integers(-big, big + 1, (filters, memory)),
                      scale=wt_scale, zero_point=0)
        bias_scale = float(np.float32(state_scale) * np.float32(wt_scale))
        bias = b.tensor("b", (units,), "int32", data=rng.integers(-5000, 5000, units), scale=bias_scale,
                        zero_point=0)
        state = b.tensor("state", (batch, filters * memory), state_dtype, variable=True, scale=state_scale,
                         zero_point=0)
        y = b.tensor("y", (batch, units), "int8", scale=out_scale, zero_point=out_zp)
    b.op("SVDF", [x, wf, wt, bias, state], [y], rank=rank, activation=activation)
    return b.inputs(x).outputs(y).build()
