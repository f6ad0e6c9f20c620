"""Scales and zero points from ranges, symmetric weights, int32 biases, and the three range methods."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from micro_relay.ir.types import DType, Quant
from micro_relay.quantize.observe import TensorStats, choose_range
from micro_relay.quantize.params import (activation_quant, bias_quant, dequantize_array, quant_range, quantize_array,
                                         weight_quant)


def test_activation_quant_known_values():
    assert activation_quant(0.0, 6.0) == Quant.tensor(np.float32(6 / 255), -128)  # relu-like: zp at the bottom
    q = activation_quant(-1.0, 1.0)
    assert q.scale == float(np.float32(2 / 255)) and q.zero_point in (-1, 0)
    assert activation_quant(0.0, 0.0) == Quant.tensor(np.float32(1 / 255), -128)  # always-zero tensor
    assert activation_quant(2.0, 3.0).zero_point == -128  # the range is widened to hold 0
    q16 = activation_quant(-4.0, 4.0, DType.INT16)  # symmetric, zp 0; the float32 scale rounds up, never down
    assert q16.zero_point == 0 and 4 / 32767 <= q16.scale < 4 / 32767 * (1 + 1e-6)


@given(st.floats(-1e3, 0.0), st.floats(0.0, 1e3), st.floats(1e-3, 1.0))
def test_activation_quant_covers_its_range_and_holds_zero_exactly(lo, hi, min_scale_factor):
    q = activation_quant(lo, hi)
    a, b = quant_range(q)
    step = q.scale
    assert a <= lo + step and b >= hi - step  # nothing in [lo, hi] is clipped by more than a step
    assert dequantize_array(quantize_array(np.zeros(1), q), q)[0] == 0.0
    assert q.scale == float(np.float32(q.scale)) and -128 <= q.zero_point <= 127
    bound = max(hi - lo, 1e-3) * min_scale_factor
    assert activation_quant(lo, hi, min_scale=bound).scale >= bound


def test_weight_quant_symmetric_per_channel_and_per_tensor():
    w = np.array([[0.5, -1.0], [0.02, 0.005], [0.0, 0.0]], dtype=np.float32)
    q, quant = weight_quant(w, axis=0)
    assert quant.axis == 0 and quant.zero_points == (0, 0, 0)
    assert q[0].tolist() == [64, -127] and q[1].tolist() == [127, 32] and q[2].tolist() == [0, 0]
    assert quant.scales[2] == quant.scales[0]  # an all-zero channel takes the largest scale
    q, quant = weight_quant(w, axis=None)
    assert quant.axis is None and len(quant.scales) == 1 and q[0].tolist() == [64, -127] and q[1].tolist() == [3, 1]


def test_bias_quant_uses_input_times_weight_scale():
    _, wq = weight_quant(np.array([[1.0], [0.5]]), axis=0)
    q, bq = bias_quant(np.array([0.25, -0.25]), 0.1, wq)
    assert bq.axis == 0 and bq.zero_points == (0, 0)
    np.testing.assert_allclose(bq.scales, [0.1 / 127, 0.05 / 127], rtol=1e-6)
    assert q.dtype == np.int32 and q.tolist() == [318, -635]


def stats_of(values) -> TensorStats:
    values = np.asarray(values, np.float32)
    return TensorStats(float(values.min()), float(values.max()), [values])


def test_range_methods_on_heavy_tailed_values():
    """Student-t (2 degrees of freedom) values, whose extremes lie far out: minmax keeps them, percentile
    clips hard, mse clips a little, the amount that gives the smallest int8 error of the three."""
    values = np.random.default_rng(0).standard_t(2, 100_000).astype(np.float32)
    stats = stats_of(values)
    minmax = choose_range(stats, "minmax")
    assert minmax == (stats.lo, stats.hi)
    percentile = choose_range(stats, "percentile", 99.9)
    assert percentile[1] == pytest.approx(np.percentile(values.astype(np.float64), 99.9))
    mse = choose_range(stats, "mse")
    assert minmax[0] < mse[0] < 0 < mse[1] < minmax[1]

    def error(r):
        q = activation_quant(*r)
        return np.mean((values - dequantize_array(quantize_array(values, q), q)) ** 2)

    assert error(mse) < min(error(minmax), error(percentile))


def test_mse_keeps_a_range_without_outliers():
    stats = stats_of(np.linspace(-1.0, 1.0, 10_001))
    lo, hi = choose_range(stats, "mse")
    assert lo <= -0.95 and hi >= 0.95


def test_unknown_method_and_bad_percentile():
    from micro_relay.errors import CompileError

    with pytest.raises(CompileError, match="unknown calibration method 'kl'"):
        choose_range(stats_of([0.0, 1.0]), "kl")
    with pytest.raises(CompileError, match="percentile must lie in"):
        choose_range(stats_of([0.0, 1.0]), "percentile", 20.0)
