"""Fixtures of the Arm DSP kernel tests."""

from __future__ import annotations

import pytest

from micro_relay.kernels.arm_dsp import depthwise_conv2d


@pytest.fixture(scope="module")
def strip_always():
    """Every int8 depthwise layer takes the strip, for tests of the strip kernel itself; which layers take it by
    default (the cost model's choice, uses_strip) is tests/kernels/arm_dsp/test_depthwise_choice.py's."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(depthwise_conv2d, "uses_strip", lambda g: g.k_h <= 255)
        yield
