"""TFLite Micro's own interpreter (PyPI tflite-micro) as the oracle for TFLite semantics."""

from __future__ import annotations

import numpy as np


def tflm_run(model_bytes: bytes, inputs: list[np.ndarray], num_outputs: int = 1, arena_size: int = 1 << 20) -> list[np.ndarray]:
    from tflite_micro import runtime

    interpreter = runtime.Interpreter.from_bytes(model_bytes, arena_size=arena_size)
    for index, value in enumerate(inputs):
        interpreter.set_input(value, index)
    interpreter.invoke()
    return [np.array(interpreter.get_output(index)) for index in range(num_outputs)]
