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


def tflm_invokes(model_bytes: bytes, samples: list[list[np.ndarray]], num_outputs: int) -> list[list[np.ndarray]]:
    """Consecutive invokes of one TFLite Micro interpreter, so its variables (stateful models) carry over."""
    from tflite_micro import runtime

    interpreter = runtime.Interpreter.from_bytes(model_bytes, arena_size=1 << 20)
    results = []
    for sample in samples:
        for index, value in enumerate(sample):
            interpreter.set_input(np.array(value, copy=True), index)
        interpreter.invoke()
        results.append([np.array(interpreter.get_output(k)) for k in range(num_outputs)])
    return results


def tflm_arena(model_bytes: bytes, arena_size: int = 1 << 20) -> dict[str, int]:
    """TFLite Micro's own arena accounting ("total", "head" = activations, "tail" = persistent), read from
    print_allocations(), which writes to the C stderr (captured by redirecting file descriptor 2)."""
    import os
    import re
    import sys
    import tempfile

    from tflite_micro import runtime

    interpreter = runtime.Interpreter.from_bytes(model_bytes, arena_size=arena_size)
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as capture:
        os.dup2(capture.fileno(), 2)
        try:
            interpreter.print_allocations()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        capture.seek(0)
        text = capture.read().decode(errors="replace")
    return {kind: int(n) for kind, n in re.findall(r"Arena allocation (total|head|tail) (\d+) bytes", text)}
