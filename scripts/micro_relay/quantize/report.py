"""The quantization report: per integer layer its activation type (int8, or int16 for the layers named by
--int16), its output scale and zero point and the error quantization adds there, and what it saves in flash
(constant bytes) and RAM (planned arena bytes).

The error is the SQNR in dB of the quantized graph's tensor (dequantized) against the float graph's
tensor, over all calibration samples: 10 log10(sum f^2 / sum (f - dq)^2). Both graphs run in the reference
interpreter, the quantized one bit-exact with the generated C, so the figure is the error the device will
have, accumulated from the input up to that layer. A layer with no error at all reports inf.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..ir.graph import Graph
from ..plan.memory_plan import plan_memory
from ..reference import run
from .params import dequantize_array, quantize_array
from .rewrite import Rewritten


@dataclass(frozen=True)
class LayerReport:
    index: int  # node index in the float graph
    op: str
    tensor: str  # the float graph's output tensor
    scale: float
    zero_point: int
    sqnr_db: float
    dtype: str = "int8"  # the activation type it runs with: int8 or int16


@dataclass(frozen=True)
class QuantizationReport:
    method: str
    per_channel: bool
    samples: int
    layers: tuple[LayerReport, ...]
    outputs: tuple[tuple[str, float], ...]  # (graph output, SQNR dB)
    float_nodes: tuple[str, ...]  # ops left in float (by the user's choice)
    weight_bytes_float: int
    weight_bytes_int8: int
    arena_bytes_float: int
    arena_bytes_int8: int
    calibration_seconds: float

    @property
    def weight_ratio(self) -> float:
        return self.weight_bytes_int8 / self.weight_bytes_float if self.weight_bytes_float else 1.0

    def format(self) -> str:
        wide = sum(layer.dtype == "int16" for layer in self.layers)
        mixed = f" (int16 activations in {wide} layer{'s' if wide > 1 else ''})" if wide else ""
        lines = [f"quantized to int8{mixed}: {self.method} calibration on {self.samples} samples in "
                 f"{self.calibration_seconds:.2f} s, {'per-channel' if self.per_channel else 'per-tensor'} weights"]
        width = max([len(layer.op) for layer in self.layers] + [2])
        lines.append(f"  {'#':>3} {'op':<{width}} {'type':<5} {'scale':>12} {'zp':>5} {'SQNR dB':>8}  tensor")
        for layer in self.layers:
            lines.append(f"  {layer.index:>3} {layer.op:<{width}} {layer.dtype:<5} {layer.scale:>12.6g} "
                         f"{layer.zero_point:>5} {_db(layer.sqnr_db):>8}  {layer.tensor}")
        for name, sqnr in self.outputs:
            lines.append(f"  output '{name}': SQNR {_db(sqnr)} dB")
        if self.float_nodes:
            lines.append(f"  kept in float: {', '.join(self.float_nodes)}")
        lines.append(f"  weights {self.weight_bytes_float} B float -> {self.weight_bytes_int8} B int8 "
                     f"({100 * self.weight_ratio:.1f}%), arena {self.arena_bytes_float} B -> {self.arena_bytes_int8} B")
        return "\n".join(lines)


def _db(value: float) -> str:
    return "inf" if math.isinf(value) and value > 0 else f"{value:.1f}"


def sqnr_db(signal: float, noise: float) -> float:
    if noise == 0.0:
        return math.inf
    if signal == 0.0:
        return -math.inf
    return 10.0 * math.log10(signal / noise)


def constant_bytes(graph: Graph) -> int:
    return sum(t.type.nbytes for t in graph.tensors.values() if t.is_constant)


def build_report(float_graph: Graph, result: Rewritten, samples, method: str, per_channel: bool,
                 calibration_seconds: float, float_values: list | None = None) -> QuantizationReport:
    """Run the quantized graph on the samples (and the float one, unless calibration kept its values)."""
    q_graph = result.graph
    watched = [float_graph.nodes[i].outputs[0] for i in result.int_nodes
               if float_graph.nodes[i].outputs[0] in result.quants]  # not bools and indices
    real_outputs = [n for n in float_graph.outputs if float_graph.type_of(n).dtype.is_float]
    signal = dict.fromkeys(watched + real_outputs, 0.0)
    noise = dict.fromkeys(signal, 0.0)
    for index, sample in enumerate(samples):
        f_values = float_values[index] if float_values else run(float_graph, sample, keep_all=True)
        q_inputs = [quantize_array(x, q_graph.type_of(n).quant) if q_graph.type_of(n).quant is not None else x
                    for n, x in zip(q_graph.inputs, sample)]
        q_values = run(q_graph, q_inputs, keep_all=True)
        for name in signal:
            f = f_values[name].astype(np.float64)
            if name in result.int_names:
                approx = dequantize_array(q_values[result.int_names[name]], result.quants[name])
            else:
                approx = q_values[name].astype(np.float64)
            signal[name] += float(np.sum(f * f))
            noise[name] += float(np.sum((f - approx) ** 2))
    layers = []
    for i in result.int_nodes:
        node = float_graph.nodes[i]
        out = node.outputs[0]
        if out not in result.quants:
            continue
        q = result.quants[out]
        layers.append(LayerReport(i, node.op, out, q.scale, q.zero_point, sqnr_db(signal[out], noise[out]),
                                  q_graph.type_of(result.int_names[out]).dtype.value))
    outputs = tuple((n, sqnr_db(signal[n], noise[n])) for n in real_outputs)
    kept = tuple(f"{n.op} '{n.name or n.outputs[0]}'" for i, n in enumerate(float_graph.nodes)
                 if i not in set(result.int_nodes))
    return QuantizationReport(method, per_channel, len(samples), tuple(layers), outputs, kept,
                              constant_bytes(float_graph), constant_bytes(q_graph),
                              plan_memory(float_graph).arena_bytes, plan_memory(q_graph).arena_bytes,
                              calibration_seconds)
