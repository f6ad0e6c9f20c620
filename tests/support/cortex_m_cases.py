"""Small models run once each on the Cortex-M4 board (the DSP paths), for the tests/bench kernel suites, their
outputs compared with TFLite Micro's interpreter on the same model file and inputs (an external oracle: the
reference interpreter shares its parameter computation with the emitter)."""

from __future__ import annotations

from pathlib import Path

from micro_relay.bench.measure import bench_graph
from micro_relay.compiler import compile_graph, prepare_graph
from micro_relay.ir.registry import get_op
from support.tflm_oracle import tflm_run

BOARD = "mps2-an386"  # Cortex-M4F: the DSP extension


def tflite_micro(model: bytes, num_outputs: int = 1):
    """The oracle for bench_graph: TFLite Micro's interpreter on the model's bytes."""
    def tflite_micro(inputs):
        return tflm_run(model, inputs, num_outputs)

    return tflite_micro


def bench_cases(folder: Path, models: dict[str, bytes], **options) -> dict[str, dict]:
    """Name -> the bench result (outputs compared with TFLite Micro's on seed 1) of each model; options go to
    bench_graph (target, kernel_options)."""
    results = {}
    for name, model in models.items():
        path = folder / f"{name}.tflite"
        path.write_bytes(model)
        graph = prepare_graph(path)
        results[name] = bench_graph(graph, name, str(path), BOARD, runs=1, seed=1,
                                    oracle=tflite_micro(model, len(graph.outputs)), **options)
    return results


def assert_bit_exact(result: dict) -> None:
    """The device's outputs equal TFLite Micro's (or, for graphs no TFLite file can hold, the reference
    interpreter's, which tests/ops ties to TFLite Micro), bit for bit."""
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
                                    kernel_options=options_on(graph, op, options),
                                    oracle=tflite_micro(model, len(graph.outputs)))
    return results
