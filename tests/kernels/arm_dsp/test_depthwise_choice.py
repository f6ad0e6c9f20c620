"""Which int8 depthwise layers take the Arm DSP strip by default (kernels/arm_dsp/depthwise_conv2d.uses_strip):
every 3x3 undilated window; other windows when the share of the layer's instructions the strip saves (the cost
model's estimates of the strip and the walk) is at least the share its scratch adds to the layer's input and
output bytes, the rule row by row takes. Named shapes: the layers of real networks that now take the strip
(dilated MobileNet, temporal separable convolutions over time), the one that must not (micro_speech's 10x8
window over one input channel, whose strip would raise its arena above TFLite Micro's), and windows so small
that the scratch outweighs them.
"""

from __future__ import annotations

import pytest

from micro_relay.kernels.arm_dsp.depthwise_conv2d import dsp_scratch_bytes, held_bytes, strip_scratch_bytes, uses_strip
from micro_relay.ops._conv_common import Geometry
from micro_relay.target.cost_model import instructions


def _geometry(in_hwc, kernel, multiplier=1, stride=(1, 1), dilation=(1, 1)) -> Geometry:
    """SAME padding, batch 1."""
    (h, w, c), (k_h, k_w) = in_hwc, kernel
    out_h, out_w = -(-h // stride[0]), -(-w // stride[1])
    pad_h = max((out_h - 1) * stride[0] + (k_h - 1) * dilation[0] + 1 - h, 0)
    pad_w = max((out_w - 1) * stride[1] + (k_w - 1) * dilation[1] + 1 - w, 0)
    return Geometry(1, h, w, c, out_h, out_w, c * multiplier, k_h, k_w, multiplier, stride[0], stride[1],
                    dilation[0], dilation[1], pad_h // 2, pad_w // 2)


# name: (geometry, takes the strip)
SHAPES = {
    "mobilenet_3x3_s1": (_geometry((16, 16, 8), (3, 3)), True),
    "depth_multiplier_2_3x3": (_geometry((32, 32, 3), (3, 3), 2), True),
    "odd_channels_3x3": (_geometry((15, 15, 5), (3, 3)), True),
    "dilated_3x3_d2": (_geometry((17, 17, 12), (3, 3), dilation=(2, 2)), True),
    "separable_1x5_over_time": (_geometry((1, 99, 24), (1, 5)), True),
    "micro_speech_10x8_m8_s2": (_geometry((49, 40, 1), (10, 8), 8, stride=(2, 2)), False),
    "tiny_5x5": (_geometry((9, 10, 4), (5, 5)), False),
    "tall_window": (_geometry((300, 4, 4), (256, 1)), False),
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_default_path(name):
    g, strip = SHAPES[name]
    assert uses_strip(g) == strip
    assert (dsp_scratch_bytes(g) > 0) == strip


@pytest.mark.parametrize("name", sorted(n for n, (g, _) in SHAPES.items()
                                        if ((g.k_h, g.k_w) != (3, 3) or g.dil_h > 1) and g.k_h <= 255))
def test_rule_weighs_instructions_saved_against_bytes_added(name):
    g, strip = SHAPES[name]
    saved = 1 - instructions("depthwise_strip", {"geometry": g}) / instructions(
        "depthwise_walk_shared4" if g.filter_c % 4 == 0 else "depthwise_walk", {"geometry": g})
    assert (saved >= strip_scratch_bytes(g) / held_bytes(g)) == strip, (saved, strip_scratch_bytes(g), held_bytes(g))


def test_held_bytes_are_the_output_and_the_input_the_windows_read():
    """micro_speech's layer: 25x20 outputs at stride 2 of a 10x8 window read 58x46 input pixels, padding
    included (49x40 of them in the image); 4,000 B of output."""
    g, _ = SHAPES["micro_speech_10x8_m8_s2"]
    assert held_bytes(g) == 58 * 46 * 1 + 25 * 20 * 8


def test_micro_speech_strip_would_be_faster_but_take_more_than_its_tensors():
    """The case the rule exists for: the strip is the faster path, and still not taken."""
    g, _ = SHAPES["micro_speech_10x8_m8_s2"]
    assert instructions("depthwise_strip", {"geometry": g}) < instructions("depthwise_walk_shared4", {"geometry": g})
    assert strip_scratch_bytes(g) > g.out_h * g.out_w * g.out_c
