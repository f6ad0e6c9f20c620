"""Small models run once each on the Cortex-M4 board (the DSP paths), for the tests/bench kernel suites."""

from __future__ import annotations

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
    return get_op(op).prepare(graph, node), "".join(compile_graph(graph, "case_model", "test",
                                                                    target="cortex-m4").files.values())


def options_on(graph, op: str, options: dict) -> dict[int, dict]:
    """Kernel options for the graph's one `op` node (compile_graph's kernel_options): a kernel variant forced,
    which plan/room.py leaves alone."""
    (index,) = [i for i, n in enumerate(graph.nodes) if n.op == op]
    return {index: options}


def bench_forced(folder: Path, models: dict[str, tuple[bytes, str, dict]]) -> dict[str, dict]:
    """bench_cases for (model, op, options): each model's one `op` node is compiled with those kernel options."""
    results = {}
    for name, (model, op, options) in models.items():
        path = folder / f"{name}.tflite"
        path.write_bytes(model)
        graph = prepare_graph(path)
        results[name] = bench_graph(graph, name, str(path), BOARD, seed=1, runs=1,
                                    kernel_options=options_on(graph, op, options))
    return results
