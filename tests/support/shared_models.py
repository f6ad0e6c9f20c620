"""The shared reference models every conformance, build and benchmark run covers (all but the LSTM one, which
keeps state between invokes: tests/conformance/test_lstm_model.py compares consecutive invokes), relative to the
models folder."""

CONFORMANCE_MODELS = (
    "tflite_micro/hello_world_int8.tflite",
    "tflite_micro/hello_world_float.tflite",
    "tflite_micro/micro_speech_quantized.tflite",
    "tflite_micro/person_detect.tflite",
    "tflite_micro/simple_add_model.tflite",
    "mlcommons_tiny/kws_ref_model.tflite",
    "mlcommons_tiny/pretrainedResnet_quant.tflite",
    "mlcommons_tiny/pretrainedResnet.tflite",
    "mlcommons_tiny/ad01_int8.tflite",
)

# Models that keep state between invokes: benchmarks time them like the others (both sides carry their state
# from run to run), the conformance tests compare consecutive invokes instead (tests/conformance/test_lstm_model.py).
STATEFUL_MODELS = ("tflite_micro/trained_lstm_int8.tflite",)


def model_id(relative: str) -> str:
    """A short test id: the file stem."""
    return relative.rsplit("/", 1)[-1].removesuffix(".tflite")
