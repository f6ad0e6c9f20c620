"""State tensors in the planner and the generated C, one test per named graph shape.

Every graph is float32 add nodes over [1, 4] vectors, so the expected outputs of consecutive invokes are
written out here by hand (closed forms in the invoke count k); the compiled C, run as one process over
several samples, keeps its static state between them, and the reference Session does the same.

    counter:        s1 = s + 1; assign(s, s1); y = x + s1             y_k = x + s0 + k
    two states:     a1 = a + x; b1 = b + a1; assign(a, a1); assign(b, b1); y = b1
    read after:     old = s + 0; s1 = x + x; assign(s, s1); new = s + 0; y = old + new
    in place:       old = s + 0; (y1, s1) = svdf(x, s); assign(s, s1); y = y1 + old   (s1 written over s)
"""

from __future__ import annotations

import numpy as np
import pytest

from micro_relay.errors import CompileError
from micro_relay.ir.graph import Graph, Node, Tensor
from micro_relay.ir.text import parse_graph, print_graph
from micro_relay.ir.types import DType, TensorType
from micro_relay.ir.verify import verify
from micro_relay.passes import run_pipeline
from micro_relay.plan import plan_memory
from micro_relay.plan.orders import ORDERS
from micro_relay.reference import Session
from support.c_harness import compile_and_run

VEC = TensorType((1, 4), DType.FLOAT32)
X = np.array([[1.0, -2.0, 0.5, 4.0]], np.float32)
INVOKES = 4


def _t(name, data=None, initial=None):
    return Tensor(name, VEC, data, initial=initial)


def _const(name, value):
    return _t(name, data=np.full((1, 4), value, np.float32))


def _state(name, value):
    return _t(name, initial=np.full((1, 4), value, np.float32))


def counter() -> Graph:
    tensors = [_t("x"), _const("one", 1.0), _state("s", 2.0), _t("s1"), _t("y")]
    nodes = [Node("add", ("s", "one"), ("s1",)), Node("assign", ("s", "s1"), ()), Node("add", ("x", "s1"), ("y",))]
    return Graph({t.name: t for t in tensors}, nodes, ("x",), ("y",))


def two_states() -> Graph:
    tensors = [_t("x"), _state("a", 0.0), _state("b", 1.0), _t("a1"), _t("b1")]
    nodes = [Node("add", ("a", "x"), ("a1",)), Node("add", ("b", "a1"), ("b1",)),
             Node("assign", ("a", "a1"), ()), Node("assign", ("b", "b1"), ())]
    return Graph({t.name: t for t in tensors}, nodes, ("x",), ("b1",))


def read_after_assign() -> Graph:
    tensors = [_t("x"), _const("zero", 0.0), _state("s", 3.0), _t("old"), _t("s1"), _t("new"), _t("y")]
    nodes = [Node("add", ("s", "zero"), ("old",)), Node("add", ("x", "x"), ("s1",)),
             Node("assign", ("s", "s1"), ()), Node("add", ("s", "zero"), ("new",)),
             Node("add", ("old", "new"), ("y",))]
    return Graph({t.name: t for t in tensors}, nodes, ("x",), ("y",))


def _expected(shape: str, k: int) -> np.ndarray:
    """Output of invoke k (0-based) from the closed form of each graph."""
    if shape == "counter":
        return X + 2.0 + (k + 1)
    if shape == "two states":  # a_k = (k+1) x; b_k = 1 + x (1 + 2 + ... + (k+1))
        return 1.0 + X * ((k + 1) * (k + 2) / 2)
    old = 3.0 if k == 0 else 2 * X  # the state holds 3 at first, then the previous invoke's x + x
    return old + 2 * X


SHAPES = {"counter": counter, "two states": two_states, "read after assign": read_after_assign}


@pytest.mark.parametrize("shape", SHAPES)
def test_reference_session_keeps_state_between_invokes(shape):
    session = Session(run_pipeline(SHAPES[shape]()))
    for k in range(INVOKES):
        np.testing.assert_array_equal(session.invoke([X])[0], _expected(shape, k).astype(np.float32))
    session.reset()
    np.testing.assert_array_equal(session.invoke([X])[0], _expected(shape, 0).astype(np.float32))


@pytest.mark.parametrize("shape", SHAPES)
def test_compiled_c_keeps_state_between_invokes(tmp_path, shape):
    graph = run_pipeline(SHAPES[shape]())
    outs = compile_and_run(graph, [[X]] * INVOKES, tmp_path)
    for k, (y,) in enumerate(outs):
        np.testing.assert_array_equal(y, _expected(shape, k).astype(np.float32), err_msg=f"invoke {k}")


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("shape", SHAPES)
def test_every_order_keeps_reads_and_assigns_in_place(shape, order):
    """An order may move nodes, never a read of a state across an assign of it (check_order asserts it
    inside plan_memory; here the positions are checked directly too)."""
    graph = run_pipeline(SHAPES[shape]())
    plan = plan_memory(graph, orders=(order,))
    step = {node: s for s, node in enumerate(plan.order)}
    for index, before in graph.state_order().items():
        assert all(step[b] < step[index] for b in before)


def test_states_live_outside_the_arena():
    graph = run_pipeline(two_states())
    plan = plan_memory(graph)
    assert plan.state.offsets == {"a": 0, "b": 16} and plan.state.state_bytes == 32
    assert not {"a", "b"} & {name for buf in plan.buffers for name in buf.tensors}
    assert plan.arena_bytes == 2 * 16  # x and a1/b1 (b1 written over a1 in place): the states are not there


def test_dead_code_keeps_assigns_and_what_they_read():
    graph = counter()
    after = run_pipeline(Graph(graph.tensors, graph.nodes[:2], ("x",), ()))  # no graph output at all
    assert [n.op for n in after.nodes] == ["add", "assign"]


def test_text_form_round_trips_states_and_assigns():
    graph = read_after_assign()
    again = parse_graph(print_graph(graph))
    assert print_graph(again) == print_graph(graph)
    assert again.tensors["s"].is_state and not again.tensors["s"].is_constant
    np.testing.assert_array_equal(again.tensors["s"].initial, graph.tensors["s"].initial)


@pytest.mark.parametrize("case", ["assign to a non-state", "state as graph output", "assign of another shape"])
def test_verifier_refuses_misused_state(case):
    graph = counter()
    tensors, nodes, outputs = dict(graph.tensors), list(graph.nodes), graph.outputs
    if case == "assign to a non-state":
        nodes[1] = Node("assign", ("x", "s1"), ())
    elif case == "state as graph output":
        outputs = ("s",)
    else:
        tensors["s1"] = Tensor("s1", TensorType((1, 2, 2), DType.FLOAT32))
        nodes[0] = Node("reshape", ("s",), ("s1",), {"newshape": (1, 2, 2)})
        nodes[2] = Node("add", ("x", "one"), ("y",))
    with pytest.raises(CompileError) as err:
        verify(Graph(tensors, nodes, ("x",), outputs))
    assert "\n" not in str(err.value) and ("state" in str(err.value) or "assign" in str(err.value))


def _svdf_in_place() -> Graph:
    """A reader of the state before an SVDF that updates it in place: every order must run the reader first."""
    rng = np.random.default_rng(3)

    def f32(*shape):
        return TensorType(shape, DType.FLOAT32)

    tensors = [Tensor("x", f32(1, 4)), Tensor("wf", f32(4, 4), rng.standard_normal((4, 4)).astype(np.float32)),
               Tensor("wt", f32(4, 3), rng.standard_normal((4, 3)).astype(np.float32)),
               Tensor("b", f32(4), np.zeros(4, np.float32)), Tensor("zero", f32(1, 12), np.zeros((1, 12), np.float32)),
               Tensor("s", f32(1, 12), initial=np.ones((1, 12), np.float32)), Tensor("old", f32(1, 12)),
               Tensor("s1", f32(1, 12)), Tensor("y1", f32(1, 4))]
    nodes = [Node("add", ("s", "zero"), ("old",)), Node("nn.svdf", ("x", "wf", "wt", "s", "b"), ("y1", "s1"),
                                                        {"rank": 1}),
             Node("assign", ("s", "s1"), ())]
    return Graph({t.name: t for t in tensors}, nodes, ("x",), ("old", "y1"))


def test_an_in_place_state_update_follows_every_other_read_of_the_old_state(tmp_path):
    """old = s is read before the SVDF writes s1 over s: the compile stores s1 in place (no copy), every order
    runs the reader before the SVDF, and the C's consecutive invokes equal the reference Session's ('old' is the
    previous invoke's state, which is x-dependent, so a reader moved after the SVDF would show)."""
    from micro_relay.compiler import compile_graph
    from micro_relay.lower import lower
    from micro_relay.plan.state import store_states_in_place

    graph = run_pipeline(_svdf_in_place())
    lowered = store_states_in_place(lower(graph))
    assert lowered.graph.tensors["s1"].stored_in == "s"
    assert lowered.graph.state_order()[1] == {0}
    for order in ORDERS:
        plan = plan_memory(lowered, orders=(order,))
        assert plan.order.index(0) < plan.order.index(1)
        assert "s1" not in {name for buf in plan.buffers for name in buf.tensors}
    assert "dst[i] = src[i]" not in compile_graph(graph, "m", "t").files["m.c"]
    xs = [[np.random.default_rng(k).standard_normal((1, 4)).astype(np.float32)] for k in range(INVOKES)]
    session = Session(graph)
    for ours, theirs in zip(compile_and_run(graph, xs, tmp_path), (session.invoke(x) for x in xs)):
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
