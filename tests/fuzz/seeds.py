"""The models the mutation fuzzer starts from: the project's own, written with its TFLite writer.

Small on purpose (a mutant compiles in milliseconds), and together they cover every operator the reader
converts, int8 and int16, per-tensor and per-channel, so a mutation can reach each converter and each op's
checks.
"""

from __future__ import annotations

from functools import lru_cache

from micro_relay.examples.kws_model import build_kws_model
from micro_relay.examples.sine_model import build_sine_model
from support import tflite_models as m


@lru_cache(maxsize=1)
def seed_models() -> tuple[tuple[str, bytes], ...]:
    """(name, .tflite bytes) for every seed, in a fixed order."""
    models = [
        ("sine", build_sine_model()),
        ("kws", build_kws_model()),
        ("conv2d", m.conv2d_model(stride=(2, 2), padding="SAME")),
        ("conv2d_int16", m.conv2d_model(dtype="int16")),
        ("depthwise", m.depthwise_model(depth_multiplier=2)),
        ("transpose_conv", m.transpose_conv_model()),
        ("fully_connected", m.fully_connected_model()),
        ("fully_connected_int16", m.fully_connected_model(dtype="int16")),
        ("avg_pool", m.pool_model("AVERAGE_POOL_2D")),
        ("max_pool", m.pool_model("MAX_POOL_2D", padding="SAME")),
        ("add", m.binary_model("ADD", shape2=(1, 1, 1, 3))),
        ("mul", m.binary_model("MUL")),
        ("sub", m.binary_model("SUB")),
        ("logistic", m.unary_model("LOGISTIC", out_quant=(1 / 256, -128))),
        ("tanh", m.unary_model("TANH", out_quant=(1 / 128, 0))),
        ("relu6", m.unary_model("RELU6")),
        ("reshape", m.reshape_model()),
        ("pad", m.pad_model()),
        ("strided_slice", m.strided_slice_model()),
        ("concat", m.concat_model()),
        ("mean", m.mean_model()),
    ]
    return tuple(models)
