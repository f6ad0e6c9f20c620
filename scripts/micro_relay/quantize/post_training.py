"""Post-training quantization as one call: check, calibrate, choose ranges, rewrite, report.

    quantized = quantize_graph(float_graph, samples, QuantizeOptions(method="mse"))

`samples` is a path to an .npz/.npy (calibration_data.py), arrays keyed by input name or listed in input
order (each (N, *model_input_shape), in the original model's layout: NCHW for an NCHW ONNX or PyTorch model),
or already split samples (a list of lists of arrays, each of the model's input shape). The input graph is
left as it was; the result is a new graph. Refusals (an already quantized model, an op with no int8 kernel,
an int16 node whose op has no int16 kernel) come before calibration runs, so they are quick.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from ..ir.graph import Graph
from ..ir.types import DType
from ..ir.verify import verify
from .calibration_data import check_calibration, load_calibration
from .observe import KEEP_BYTES, choose_range, observe
from .report import QuantizationReport, build_report
from .rewrite import QuantizeOptions, plan_domains, refuse_quantized, rewrite


def _samples(graph: Graph, samples) -> list[list[np.ndarray]]:
    if isinstance(samples, (str, Path)):
        return load_calibration(samples, graph)
    if isinstance(samples, list) and samples and isinstance(samples[0], (list, tuple)):
        stacked = [np.stack([np.asarray(s[i]) for s in samples]) for i in range(len(graph.inputs))]
        return check_calibration(stacked, graph)
    return check_calibration(samples, graph)


def quantize_with_report(graph: Graph, samples, options: QuantizeOptions = QuantizeOptions(),
                         report: bool = True) -> tuple[Graph, QuantizationReport | None]:
    """The quantized graph and, unless report=False, its report (which runs both graphs on the samples)."""
    verify(graph)
    refuse_quantized(graph)
    domains = plan_domains(graph, options.keep_float, options.int16)  # refuse unsupported ops before calibrating
    wide = {n.outputs[0] for n, d in zip(graph.nodes, domains) if d == DType.INT16}
    samples = _samples(graph, samples)
    start = time.perf_counter()
    stats, float_values = observe(graph, samples, keep_bytes=KEEP_BYTES if report else 0)
    ranges = {name: choose_range(s, options.method, options.percentile, DType.INT16 if name in wide else DType.INT8)
              for name, s in stats.items()}
    seconds = time.perf_counter() - start
    result = rewrite(graph, ranges, options)
    if not report:
        return result.graph, None
    return result.graph, build_report(graph, result, samples, options.method, options.per_channel, seconds,
                                      float_values)


def quantize_graph(graph: Graph, samples, options: QuantizeOptions = QuantizeOptions()) -> Graph:
    """The quantized graph (no report)."""
    return quantize_with_report(graph, samples, options, report=False)[0]
