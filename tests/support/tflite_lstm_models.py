"""Single-op UNIDIRECTIONAL_SEQUENCE_LSTM models for the LSTM tests, written with the project's TFLite writer.

The models are what TFLite Micro's kernel accepts: all four gates, no peephole/projection/layer norm, the
hidden and cell states as variable tensors [batch, units], the output quantized like the hidden state (TFLite
Micro copies the hidden state's bytes into it). Quantized weights are per-tensor int8 with zero point 0, scaled
so that a typical gate pre-activation lands near `spread` (in the Q3.12 gate domain, where 8 saturates);
biases are int32 (int8 activations) or int64 (int16), in units of in_s * w_s as converters write them.
"""

from __future__ import annotations

import math

import numpy as np

from micro_relay.frontend.tflite.writer import TFLiteBuilder

_SPREAD = {"int8": 74.0, "int16": 18918.0}  # typical |q - zp| of a uniform input
_BIAS = {"int8": "int32", "int16": "int64"}
_GATES = "ifco"


def lstm_model(dtype="int8", batch=1, time=4, input_size=3, units=5, time_major=False, cell_clip=0.0,
               in_scale=1 / 128, in_zp=0, h_scale=1 / 128, h_zp=0, cell_power=-12, cell_scale=None,
               spread=2.0, seed=0, activation="TANH", variant=None) -> bytes:
    """One LSTM over [batch, time, input_size] ([time, batch, input_size] when time_major). `variant` makes
    one that TFLite Micro's kernel does not run: "peephole", "projection", "layer_norm", "cifg" (no input
    gate) or "per_channel" (per-channel weights)."""
    rng = np.random.default_rng(seed)
    b = TFLiteBuilder()
    data_shape = (time, batch, input_size) if time_major else (batch, time, input_size)
    out_shape = (time, batch, units) if time_major else (batch, time, units)
    quantized = dtype != "float32"
    if dtype == "int16":
        in_zp = h_zp = 0
    x = b.tensor("input", data_shape, dtype, **({"scale": in_scale, "zero_point": in_zp} if quantized else {}))
    weights, biases = [], []
    for kind, depth, scale in (("input", input_size, in_scale), ("recurrent", units, h_scale)):
        for gate in _GATES:
            name = f"{kind}_to_{gate}"
            if not quantized:
                weights.append(b.tensor(name, (units, depth), "float32",
                                        data=rng.standard_normal((units, depth)) / math.sqrt(depth)))
                continue
            w_scale = spread / (scale * 73.0 * _SPREAD[dtype]
                                * math.sqrt(depth)) / 3.0
            per_channel = variant == "per_channel" and units > 1
            weights.append(b.tensor(name, (units, depth), "int8", data=rng.integers(-127, 128, (units, depth)),
                                    scale=[w_scale] * units if per_channel else w_scale, zero_point=0,
                                    axis=0 if per_channel else None))
            if kind == "input":
                real = rng.standard_normal(units) * 0.5 + (1.0 if gate == "f" else 0.0)
                biases.append(b.tensor(f"bias_{gate}", (units,), _BIAS[dtype],
                                       data=np.round(real / (in_scale * w_scale)), scale=in_scale * w_scale,
                                       zero_point=0))
    if not quantized:
        biases = [b.tensor(f"bias_{g}", (units,), "float32", data=rng.standard_normal(units) * 0.5) for g in _GATES]
    shape = (batch, units)
    cell_scale = cell_scale or 2.0 ** cell_power
    h = b.tensor("h_state", shape, dtype, variable=True, **({"scale": h_scale, "zero_point": h_zp} if quantized else {}))
    c = b.tensor("c_state", shape, "int16" if quantized else "float32", variable=True,
                 **({"scale": cell_scale, "zero_point": 0} if quantized else {}))
    y = b.tensor("output", out_shape, dtype, **({"scale": h_scale, "zero_point": h_zp} if quantized else {}))
    inputs = [x, *weights[:4], *weights[4:], None, None, None, *biases, None, None, h, c, None, None, None, None]
    _apply_variant(b, inputs, variant, units, "float32" if not quantized else "int16")
    b.op("UNIDIRECTIONAL_SEQUENCE_LSTM", inputs, [y], cell_clip=cell_clip, time_major=time_major,
         activation=activation)
    return b.inputs(x).outputs(y).build()


_OPTIONAL = {"peephole": ("cell_to_forget", 10), "projection": ("projection", 16), "layer_norm": ("forget_norm", 21)}


def _apply_variant(b: TFLiteBuilder, inputs: list, variant: str | None, units: int, dtype: str) -> None:
    """Fill in the inputs a `variant` adds (one optional tensor) or take the input gate away (cifg)."""
    if variant == "cifg":
        inputs[1] = inputs[5] = inputs[12] = None
    if variant in _OPTIONAL:
        name, index = _OPTIONAL[variant]
        shape = (units, units) if variant == "projection" else (units,)
        quant = {} if dtype == "float32" else {"scale": 1e-3, "zero_point": 0}
        inputs[index] = b.tensor(name, shape, dtype, data=np.ones(shape), **quant)
