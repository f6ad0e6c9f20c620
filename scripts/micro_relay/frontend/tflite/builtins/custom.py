"""CUSTOM operators, dispatched by their custom code (the operator code's name, e.g. "SignalWindow").

TFLite stores a custom operator's options as a flexbuffer blob (Operator.custom_options); TFLite Micro's
custom kernels read it as a map. `custom_options` decodes it once into a dict; a converter registers with
`converts_custom(name)` in its family's module, and unknown names fail in one line.
"""

from __future__ import annotations

from collections.abc import Callable

from flatbuffers import flexbuffers
from tflite.BuiltinOperator import BuiltinOperator as B

from .context import converts

CUSTOM_CONVERTERS: dict[str, Callable] = {}


def converts_custom(*names: str):
    def wrap(fn):
        for name in names:
            CUSTOM_CONVERTERS[name] = fn
        return fn

    return wrap


def custom_options(ctx, op) -> dict:
    """The operator's custom_options flexbuffer as a dict ({} when absent)."""
    if op.CustomOptionsLength() == 0:
        return {}
    blob = op.CustomOptionsAsNumpy().tobytes()
    try:
        value = flexbuffers.Loads(blob)
    except Exception:  # flexbuffers raises anything on a corrupt blob
        ctx.fail(f"corrupt custom_options flexbuffer ({len(blob)} bytes)")
    if not isinstance(value, dict):
        ctx.fail(f"custom_options is a flexbuffer {type(value).__name__}, expected a map")
    return value


def exact_options(ctx, options: dict, *keys: str) -> None:
    """TFLite Micro's signal kernels read their options by position in the key-sorted flexbuffer map, so any
    other key would shift what they read: refuse a map whose keys are not exactly the op's attributes."""
    if sorted(options) != sorted(keys):
        ctx.fail(f"custom options {sorted(options)} are not exactly {sorted(keys)}, which TFLite Micro reads by "
                 f"position")


def option_int(ctx, options: dict, key: str, low: int, high: int) -> int:
    """An integer option in [low, high] (TFLite Micro reads it as int32); absent or out of range fails."""
    value = options.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        ctx.fail(f"custom option '{key}' must be an integer, got {value!r}")
    if not low <= value <= high:
        ctx.fail(f"custom option '{key}' = {value} is outside [{low}, {high}]")
    return value


@converts(B.CUSTOM)
def custom(ctx, op, inputs, outputs):
    code = ctx.model.OperatorCodes(op.OpcodeIndex()).CustomCode()
    name = code.decode("utf-8", "replace") if code else ""
    converter = CUSTOM_CONVERTERS.get(name)
    if converter is None:
        ctx.fail(f"unsupported custom operator '{name}'")
    return converter(ctx, op, inputs, outputs, custom_options(ctx, op))
