"""Shared by the quantization tests: compile a graph to C, run it on the host, compare with the reference."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from micro_relay.compiler import compile_graph, write_output
from micro_relay.ir.graph import Graph
from micro_relay.reference import run

from support.c_harness import build_host_program, run_host_program


def run_c(graph: Graph, samples: list[list[np.ndarray]], out_dir: Path, name: str = "model") -> list[list[np.ndarray]]:
    """Compile the graph, build it with the strict host flags and run it on every sample."""
    model = compile_graph(graph, name, "quantize test")
    write_output(model, out_dir)
    exe = build_host_program(out_dir, name)
    types = [(graph.type_of(n).dtype.numpy, graph.type_of(n).shape) for n in graph.outputs]
    inputs = [[np.ascontiguousarray(np.asarray(x).reshape(graph.type_of(n).shape), dtype=graph.type_of(n).dtype.numpy)
               for n, x in zip(graph.inputs, sample)] for sample in samples]
    return run_host_program(exe, inputs, types)


def assert_c_matches_reference(graph: Graph, samples: list[list[np.ndarray]], out_dir: Path) -> list[list[np.ndarray]]:
    """Compiled C equals the reference interpreter byte for byte on every sample (a float output of an op kept
    in float, whose C calls libm, within 1e-5 relative); returns the C outputs."""
    compiled = run_c(graph, samples, out_dir)
    for index, (sample, outs) in enumerate(zip(samples, compiled)):
        for k, (c, r) in enumerate(zip(outs, run(graph, sample))):
            producer = next(n for n in graph.nodes if graph.outputs[k] in n.outputs)
            if c.dtype.kind == "f" and producer.op != "qnn.dequantize":
                np.testing.assert_allclose(c, r, rtol=1e-5, atol=1e-5 * float(np.abs(r).max(initial=1e-30)))
                continue
            assert c.tobytes() == r.tobytes(), \
                f"sample {index} output {k}: C {c.ravel()[:8]} vs reference {r.ravel()[:8]}"
    return compiled


def split(arrays: dict[str, np.ndarray], graph: Graph) -> list[list[np.ndarray]]:
    """(N, *shape) arrays keyed by input name -> N samples, each a list of inputs in graph order."""
    count = len(next(iter(arrays.values())))
    return [[arrays[n][i] for n in graph.inputs] for i in range(count)]
