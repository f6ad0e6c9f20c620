"""Models too large for a small board: one int8 fully connected layer, 1024 inputs to 320 units (`wide`) or
to 250 (`snug`).

wide's 327,680 B of weights exceed the 256 KiB of flash of qemu_cortex_m3 (and of many real boards) on their
own: the build's budget check before the link must catch it. snug's 256,000 B fit those 256 KiB alone, but
not with the kernels and the firmware: the link overflows, and the linker launcher must give the breakdown
(tests/zephyr/too_large). The weights are seeded random values: the models are never run, only compiled.
"""

from __future__ import annotations

import numpy as np

from ..frontend.tflite.writer import TFLiteBuilder

INPUTS, UNITS, SNUG_UNITS = 1024, 320, 250


def build_wide_model(seed: int = 3, units: int = UNITS) -> bytes:
    """The int8 .tflite bytes of the one-layer network with `units` outputs."""
    rng = np.random.default_rng(seed)
    builder = TFLiteBuilder()
    x = builder.tensor("x", (1, INPUTS), "int8", scale=0.02, zero_point=0)
    weight = builder.tensor("weights", (units, INPUTS), "int8", data=rng.integers(-127, 128, (units, INPUTS)),
                            scale=0.01, zero_point=0)
    bias = builder.tensor("bias", (units,), "int32", data=rng.integers(-1000, 1000, units), scale=0.0002,
                          zero_point=0)
    y = builder.tensor("y", (1, units), "int8", scale=0.5, zero_point=0)
    builder.op("FULLY_CONNECTED", [x, weight, bias], [y], activation="NONE")
    return builder.inputs(x).outputs(y).build()
