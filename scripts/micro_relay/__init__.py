"""Micro Relay: an ahead-of-time compiler from trained networks to static-memory C99.

Python API (the command line, `micro-relay`, wraps the same functions):
    graph = micro_relay.from_torch(module, (example_input,))     # PyTorch -> optimized Micro Relay IR
    model = micro_relay.compile(graph_or_model_file, "out", name="net")   # writes out/net.c, net.h, runtime
Heavy imports (tvm, torch, onnx) happen inside these functions, never at `import micro_relay`.
"""

from __future__ import annotations

__version__ = "0.1.0"


def from_torch(module, example_inputs, io_layout: str = "nhwc"):
    """A PyTorch module (traced with torch.export on `example_inputs`) as an optimized Micro Relay graph.
    io_layout 'nhwc' (default) stores 4-D inputs/outputs NHWC; 'nchw' keeps the module's layout there."""
    from .frontend.relax import from_torch as _from_torch
    from .passes import run_pipeline

    return run_pipeline(_from_torch(module, example_inputs, io_layout, type(module).__name__))


def compile(model, out_dir, name: str | None = None, input_shapes: dict | None = None, io_layout: str = "nhwc",
            arena_section: str | None = None, with_runtime: bool = True, calibration=None, quantize=None,
            kernels: str = "micro-relay", target: str = "generic"):
    """Compile a model file (.tflite, .onnx) or a graph from `from_torch` to C in `out_dir`; returns the
    CompiledModel (graph, memory plan, file texts). With `calibration` (an .npz/.npy path, arrays keyed by
    input name, or a list in input order) a float model is quantized to int8 first; `quantize` takes a
    micro_relay.quantize.QuantizeOptions (method, per-channel weights, ops kept in float, int16 layers,
    int8 I/O). `kernels="cmsis-nn"` makes the int8 conv, depthwise and dense layers call CMSIS-NN (README); `target` names
    the core (micro_relay.target.TARGETS; generic: portable C)."""
    from pathlib import Path

    from .compiler import compile_graph, default_name, prepare_graph, write_output
    from .ir.graph import Graph
    from .passes import run_pipeline

    if isinstance(model, Graph):
        graph, source, default = run_pipeline(model), "graph", "model"
    else:
        graph, source, default = prepare_graph(model, input_shapes, io_layout), Path(model).name, default_name(model)
    if calibration is not None:  # after the pipeline, never before it: lower_qdq would undo kept-float ops
        from .quantize import QuantizeOptions, quantize_graph

        graph = quantize_graph(graph, calibration, quantize or QuantizeOptions())
    compiled = compile_graph(graph, name or default, source, arena_section, kernels=kernels, target=target)
    write_output(compiled, out_dir, with_runtime)
    return compiled
