"""Single-op LOG_SOFTMAX models. int8 outputs have TFLite Micro's fixed quantization (scale 16/256, zero
point 127) unless a test asks for another to see it refused."""

from __future__ import annotations

from micro_relay.frontend.tflite.writer import TFLiteBuilder

OUT_QUANT = (16.0 / 256, 127)


def log_softmax_model(dtype="int8", shape=(1, 12), in_quant=(0.1, 0), out_quant=OUT_QUANT) -> bytes:
    def quant(q):
        return {} if dtype == "float32" else {"scale": q[0], "zero_point": q[1]}

    b = TFLiteBuilder()
    x = b.tensor("input", shape, dtype, **quant(in_quant))
    y = b.tensor("output", shape, dtype, **quant(out_quant))
    b.op("LOG_SOFTMAX", [x], [y])
    return b.inputs(x).outputs(y).build()
