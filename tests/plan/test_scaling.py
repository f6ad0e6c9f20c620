"""The cost of compiling grows linearly with the graph: planning, the plan check, the report and the emitter
on a chain of N layers and on one of 4N do about 4x the work, not 16x.

Work is counted, not timed: every Python function call and generator step the interpreter reports to a
profile hook (sys.setprofile) while the chain is planned and emitted. A loop over all nodes or buffers for
each node or buffer shows up as a ratio well above 4 (the planner before this test: 6.0 on the conv chain
of 32 and 128 layers, 8.5 on the element-wise one of 64 and 256); the bound (5) leaves room for sorting.
The searches bounded by budgets of their own (peak_search, branch_and_bound) are left out of the count, and
the room search (plan/room.py), quadratic by design with one placement per candidate, is held to its work
budget by the last test.

Chains are written with the project's TFLite writer: int8 [1, 4, 4, 8] 1x1 convolutions, depthwise 3x3,
residual adds and relus (the mix of a small CNN), and int8 [1, 64] element-wise ops that run in place.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

from micro_relay.lower import lower
from micro_relay.codegen.emit import emit_model
from micro_relay.compiler import compile_graph
from micro_relay.frontend.tflite.reader import read_tflite
from micro_relay.frontend.tflite.writer import TFLiteBuilder
from micro_relay.passes import run_pipeline
from micro_relay.plan import plan_memory, room
from micro_relay.plan.report import plan_report

SHAPE, CHANNELS, VECTOR = (1, 4, 4, 8), 8, (1, 64)
GREEDY_PLANNERS = ("greedy_by_size", "greedy_by_lifetime", "greedy_by_conflict")
MOST_RATIO = 5.0  # linear work gives 4x for 4x the nodes (3.95 today), quadratic 16x


def conv_chain(n: int):
    rng = np.random.default_rng(n)
    b = TFLiteBuilder()
    x = b.tensor("input", SHAPE, "int8", scale=0.05, zero_point=-2)
    history = [x, x]
    for i in range(n):
        out = b.tensor(f"op{i}", SHAPE, "int8", scale=0.05, zero_point=-2)
        if i % 4 in (0, 1):
            depthwise = i % 4 == 1
            shape = (1, 3, 3, CHANNELS) if depthwise else (CHANNELS, 1, 1, CHANNELS)
            w = b.tensor(f"w{i}", shape, "int8", data=rng.integers(-127, 128, shape),
                         scale=list(rng.uniform(0.002, 0.02, CHANNELS)), zero_point=0, axis=3 if depthwise else 0)
            bias = b.tensor(f"b{i}", (CHANNELS,), "int32", data=rng.integers(-500, 500, CHANNELS),
                            scale=[1e-4] * CHANNELS, zero_point=0, axis=0)
            if depthwise:
                b.op("DEPTHWISE_CONV_2D", [history[-1], w, bias], [out], padding="SAME", depth_multiplier=1)
            else:
                b.op("CONV_2D", [history[-1], w, bias], [out], padding="SAME")
        elif i % 4 == 2:
            b.op("ADD", [history[-1], history[-3]], [out])
        else:
            b.op("RELU", [history[-1]], [out])
        history.append(out)
    return run_pipeline(read_tflite(b.inputs(x).outputs(history[-1]).build()))


def elementwise_chain(n: int):
    rng = np.random.default_rng(n)
    b = TFLiteBuilder()
    current = x = b.tensor("input", VECTOR, "int8", scale=0.05, zero_point=1)
    for i in range(n):
        if i % 2:
            out = b.tensor(f"op{i}", VECTOR, "int8", scale=1 / 128, zero_point=0)
            b.op("TANH", [current], [out])
        else:
            out = b.tensor(f"op{i}", VECTOR, "int8", scale=0.05, zero_point=1)
            c = b.tensor(f"c{i}", VECTOR[-1:], "int8", data=rng.integers(-128, 128, VECTOR[-1]), scale=0.03,
                         zero_point=1)
            b.op("ADD", [current, c], [out])
        current = out
    return run_pipeline(read_tflite(b.inputs(x).outputs(current).build()))


def work(fn) -> int:
    """Function calls and generator steps (profile 'call' and 'c_call' events) while fn runs."""
    count = 0

    def hook(frame, event, arg):
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(hook)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return count


def plan_and_emit(graph) -> None:
    """What compile_graph does without the room search, with the searches that are bounded by their own
    budgets (peak_search, branch_and_bound) left out: their work does not grow with the graph."""
    lowered = lower(graph)
    plan = plan_memory(lowered, GREEDY_PLANNERS, ("model", "memory_greedy", "depth_first"))
    emit_model("net", lowered, plan, "chain")
    plan_report("net", lowered, plan, "chain")


@pytest.mark.parametrize("chain, n", [(conv_chain, 32), (elementwise_chain, 64)], ids=["conv", "elementwise"])
def test_planning_and_emission_grow_linearly(chain, n):
    plan_and_emit(chain(n))  # imports and one-time tables outside the count
    counts = [work(lambda g=g: plan_and_emit(g)) for g in (chain(n), chain(4 * n))]
    assert counts[1] / counts[0] < MOST_RATIO, counts


def test_room_search_stops_at_its_work_budget(monkeypatch):
    """With a budget of about three placements, three tests run and every later candidate keeps its
    default kernel, named as not tried in the report (on Cortex-M4, whose conv kernel offers larger tiles)."""
    graph = conv_chain(96)
    tests = 0
    fits = room._fits

    def counted(*args):
        nonlocal tests
        tests += 1
        return fits(*args)

    monkeypatch.setattr(room, "_fits", counted)
    buffers = len(compile_graph(graph, "net", "chain", room=False, target="cortex-m4").plan.buffers)
    monkeypatch.setattr(room, "ROOM_WORK_BUDGET", 2 * buffers)
    _, choices = room.use_room(lower(graph, "cortex-m4"))
    untried = [c for c in choices if c.note.startswith("not tried")]
    assert 1 <= tests <= 4 and len(untried) >= len(choices) - tests and all(c.variant is None for c in untried)
