"""Calibration: run the float graph on the samples and choose a real range for every activation tensor.

`observe` runs the reference interpreter (float) once per sample and keeps, for every non-constant tensor,
its exact minimum and maximum and a bounded, seeded subsample of its values (at most MAX_VALUES per
tensor, spread evenly over the samples), enough for percentiles and the MSE search. While they fit in
KEEP_BYTES it also keeps every sample's float activations, so the report does not run the float graph again.

`choose_range` turns those statistics into [lo, hi] by one of three methods:
- minmax: the observed minimum and maximum (nothing is clipped);
- percentile: the (100 - p)th and p-th percentiles of the values (p = 99.99 by default), so rare outliers
  are clipped and the common values get finer steps;
- mse: the range minimizing the mean squared int8 quantize-dequantize error of the values (for a tensor
  that runs in int16, the symmetric int16 error). The values go into a 2048-bin histogram over [min, max];
  the search shrinks one end at a time by factors in [0.05, 1) (200 steps; the upper end, then the lower,
  twice over: coordinate descent, so a one-sided outlier is clipped without clipping the other side); each
  candidate's error is computed on the bin centres weighted by their counts, clipped values included; a
  candidate must beat the best so far to win (ties keep the wider range).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import CompileError
from ..ir.graph import Graph
from ..ir.types import DType
from ..reference import run

METHODS = ("minmax", "percentile", "mse")
MAX_VALUES = 1 << 20
HISTOGRAM_BINS = 2048
MSE_STEPS = 200
KEEP_BYTES = 64 << 20  # float activations kept for the report up to this size, recomputed beyond it


@dataclass
class TensorStats:
    """What calibration saw of one tensor: exact extremes and a subsample of its values."""

    lo: float = np.inf
    hi: float = -np.inf
    parts: list = field(default_factory=list)

    @property
    def values(self) -> np.ndarray:
        return np.concatenate(self.parts) if self.parts else np.zeros(0, np.float32)


def observe(graph: Graph, samples: list[list[np.ndarray]], seed: int = 0,
            keep_bytes: int = KEEP_BYTES) -> tuple[dict[str, TensorStats], list | None]:
    """Statistics of every float activation tensor (graph inputs included) over the samples, and every
    sample's activation values when they fit in `keep_bytes` (the report reuses them), else None."""
    rng = np.random.default_rng(seed)
    stats: dict[str, TensorStats] = {}
    per_sample = max(1, MAX_VALUES // len(samples))
    activations = [n for n, t in graph.tensors.items() if not t.is_constant]
    kept: list | None = []
    if sum(graph.type_of(n).nbytes for n in activations) * len(samples) > keep_bytes:
        kept = None
    for index, sample in enumerate(samples):
        values = run(graph, sample, keep_all=True)
        if kept is not None:
            kept.append({n: values[n] for n in activations})
        for name, value in values.items():
            if graph.tensors[name].is_constant or not graph.type_of(name).dtype.is_float:
                continue
            flat = value.ravel()
            if not np.isfinite(flat).all():
                raise CompileError(f"calibration sample {index} makes tensor '{name}' NaN or infinite in the float "
                                   "model", "calibration")
            s = stats.setdefault(name, TensorStats())
            s.lo, s.hi = min(s.lo, float(flat.min())), max(s.hi, float(flat.max()))
            s.parts.append(flat if flat.size <= per_sample else rng.choice(flat, per_sample, replace=False))
    return stats, kept


def choose_range(stats: TensorStats, method: str = "minmax", percentile: float = 99.99,
                 dtype: DType = DType.INT8) -> tuple[float, float]:
    """[lo, hi] for one tensor by the named method, for int8 (or int16) activations."""
    if method == "minmax":
        return stats.lo, stats.hi
    if method == "percentile":
        if not 50.0 < percentile <= 100.0:
            raise CompileError(f"percentile must lie in (50, 100], got {percentile}", "--calibration-method")
        lo, hi = np.percentile(stats.values.astype(np.float64), [100.0 - percentile, percentile])
        return float(lo), float(hi)
    if method == "mse":
        return _mse_range(stats, dtype)
    raise CompileError(f"unknown calibration method '{method}' (known: {', '.join(METHODS)})", "--calibration-method")


def _mse_range(stats: TensorStats, dtype: DType = DType.INT8) -> tuple[float, float]:
    lo, hi = min(stats.lo, 0.0), max(stats.hi, 0.0)
    if hi == lo:
        return lo, hi
    counts, edges = np.histogram(stats.values.astype(np.float64), bins=HISTOGRAM_BINS, range=(lo, hi))
    centres = (edges[:-1] + edges[1:]) / 2
    keep = counts > 0
    centres, counts = centres[keep], counts[keep]

    def errors(lows: np.ndarray, highs: np.ndarray) -> np.ndarray:
        """Squared error of the histogram under each candidate range, all candidates at once (the scale and
        zero point as activation_quant picks them, up to its float32 rounding of the scale)."""
        if dtype == DType.INT16:  # symmetric, zero point 0
            scale = np.maximum(np.maximum(-lows, highs) / dtype.max, np.finfo(np.float32).tiny)[:, None]
            zp = np.zeros_like(scale)
        else:
            scale = np.maximum((highs - lows) / (dtype.max - dtype.min), np.finfo(np.float32).tiny)[:, None]
            zp = np.clip(np.round(dtype.min - lows[:, None] / scale), dtype.min, dtype.max)
        q = np.clip(np.round(centres[None, :] / scale) + zp, dtype.min, dtype.max)
        return np.sum(counts[None, :] * (centres[None, :] - (q - zp) * scale) ** 2, axis=1)

    best = (lo, hi)
    best_error = float(errors(np.array([lo]), np.array([hi]))[0])
    factors = np.linspace(1.0, 0.05, MSE_STEPS)[1:]
    for _ in range(2):  # coordinate descent: the upper end with the lower fixed, then the lower end
        for end in (1, 0):
            if best[end] == 0.0:
                continue
            lows = np.full(factors.shape, best[0]) if end else best[0] * factors
            highs = best[1] * factors if end else np.full(factors.shape, best[1])
            e = errors(lows, highs)
            k = int(np.argmin(e))  # the first minimum: the widest range among equals
            if e[k] < best_error * (1 - 1e-9):
                best, best_error = (float(lows[k]), float(highs[k])), float(e[k])
    return best
