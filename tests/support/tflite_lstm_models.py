"""Single-op UNIDIRECTIONAL_SEQUENCE_LSTM models for the LSTM tests, written with the project's TFLite writer.

The models are what TFLite Micro's kernel accepts: all four gates, no peephole/projection/layer norm, the
hidden and cell states as variable tensors [batch, units], the output quantized like the hidden state (TFLite
Micro copies the hidden state's bytes into it). Quantized weights are per-tensor int8 with zero point 0, scaled
so that a typical gate pre-activation lands near `spread` (in the Q3.12 gate domain, where 8 saturates);
biases are int32 (int8 activations) or int64 (int16), in units of in_s * w_s as converters write them.

`check_invokes` runs several consecutive invokes of one model instance (the states carry over) in the
compiled C, the reference interpreter's Session and one TFLite Micro interpreter, and asserts they agree.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import numpy as np

from micro_relay.frontend.tflite import read_tflite
from micro_relay.frontend.tflite.writer import TFLiteBuilder
from micro_relay.passes import run_pipeline
from micro_relay.reference import Session

from .c_harness import compile_and_run
from .model_check import Comparison, assert_matches, random_inputs
from .tflm_oracle import tflm_invokes

_SPREAD = {"int8": 74.0, "int16": 18918.0}  # typical |q - zp| of a uniform input
_BIAS = {"int8": "int32", "int16": "int64"}
_GATES = "ifco"


def lstm_model(dtype="int8", batch=1, time=4, input_size=3, units=5, time_major=False, cell_clip=0.0,
               in_scale=1 / 128, in_zp=0, h_scale=1 / 128, h_zp=0, cell_power=-12, cell_scale=None,
               spread=2.0, seed=0, activation="TANH", variant=None, state_shape=None, cell_dtype=None) -> bytes:
    """One LSTM over [batch, time, input_size] ([time, batch, input_size] when time_major). `variant` makes
    one that TFLite Micro's kernel does not run: "peephole", "projection", "layer_norm", "cifg" (no input
    gate) or "per_channel" (per-channel weights); `state_shape` and `cell_dtype` make malformed states."""
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
    shape = state_shape or (batch, units)
    cell_scale = cell_scale or 2.0 ** cell_power
    h = b.tensor("h_state", shape, dtype, variable=True, **({"scale": h_scale, "zero_point": h_zp} if quantized else {}))
    c = b.tensor("c_state", shape, cell_dtype or ("int16" if quantized else "float32"), variable=True,
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


def check_invokes(model: bytes, invokes: int = 3, float_scale: float = 1.0, seed: int = 0, samples=None,
                  float_rtol: float = 1e-5) -> Comparison:
    """`invokes` consecutive invokes on seeded random inputs (or `samples`): C, reference and TFLite Micro."""
    graph = run_pipeline(read_tflite(model, "test model"))
    if samples is None:
        rng = np.random.default_rng(seed)
        samples = [[v * np.float32(float_scale) if v.dtype.kind == "f" else v for v in random_inputs(graph, rng)]
                   for _ in range(invokes)]
    with tempfile.TemporaryDirectory() as tmp:
        compiled = compile_and_run(graph, samples, Path(tmp))
    session = Session(graph)
    reference = [session.invoke([x.copy() for x in sample]) for sample in samples]
    tflm = tflm_invokes(model, samples, len(graph.outputs))
    result = Comparison(compiled, reference, tflm, 0)
    assert_matches(result, float_rtol=float_rtol)
    return result
