"""Small models run once each on the Cortex-M4 board (the DSP paths), for the tests/bench kernel suites."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from micro_relay.bench.measure import bench_graph, bench_model
from micro_relay.compiler import compile_graph, prepare_graph
from micro_relay.ir.registry import get_op

BOARD = "mps2-an386"  # Cortex-M4F: the DSP extension


def bench_cases(folder: Path, models: dict[str, bytes]) -> dict[str, dict]:
    """Name -> the bench result (outputs compared with the reference interpreter on seed 1) of each model."""
    results = {}
    for name, model in models.items():
        path = folder / f"{name}.tflite"
        path.write_bytes(model)
        results[name] = bench_model(path, BOARD, runs=1, seed=1)
    return results


def assert_bit_exact(result: dict) -> None:
    """The device's outputs equal the reference interpreter's (which is bit-exact with TFLite Micro)."""
    assert result["outputs_match"] is True, result
    assert result["max_abs_diff"] == 0


def compiled_single_op(folder: Path, name: str, model: bytes, op: str) -> tuple[dict, str]:
    """The compile-time parameters of the model's one `op` node and the generated C (which entry point it calls),
    for the tests that check a case drives the branch its comment names."""
    path = folder / f"{name}.tflite"
    path.write_bytes(model)
    graph = prepare_graph(path)
    (node,) = [n for n in graph.nodes if n.op == op]
    return get_op(op).prepare(graph, node), "".join(compile_graph(graph, "case_model", "test").files.values())


def with_node_attrs(graph, op: str, attrs: dict):
    """The graph with `attrs` set on its one `op` node: a kernel variant forced (plan/room.py leaves it alone)."""
    (index,) = [i for i, n in enumerate(graph.nodes) if n.op == op]
    nodes = list(graph.nodes)
    nodes[index] = nodes[index].with_attrs(**attrs)
    return replace(graph, nodes=tuple(nodes))


def bench_forced(folder: Path, models: dict[str, tuple[bytes, str, dict]]) -> dict[str, dict]:
    """bench_cases for (model, op, attrs): each model's one `op` node gets attrs before it is compiled."""
    results = {}
    for name, (model, op, attrs) in models.items():
        path = folder / f"{name}.tflite"
        path.write_bytes(model)
        graph = with_node_attrs(prepare_graph(path), op, attrs)
        results[name] = bench_graph(graph, name, str(path), BOARD, seed=1, runs=1)
    return results
