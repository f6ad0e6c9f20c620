"""Write one of the project's own example models, and optionally its test vectors as a C header.

    python3 -m micro_relay.examples.write_model sine sine.tflite [--vectors sine_vectors.h] [--name sine]
    python3 -m micro_relay.examples.write_model kws kws.tflite --vectors kws_vectors.h

Models (generated here, nothing downloaded):
  sine  1-16-16-1 int8 network trained on sin(x), x in [0, 2π] (examples/sine_model.py)
  kws   DS-CNN-shaped int8 keyword-spotting network with seeded weights (examples/kws_model.py)
  wake  its small two-class sibling (8 channels, one block): the wake-word gate of samples/cascade
  wide  one int8 dense layer with 320 KiB of weights, too large for a 256 KiB board (examples/wide_model.py;
        no vectors: it is compiled, never run)
  snug  the same with 250 KiB of weights: fits a 256 KiB board alone, not with the firmware
  mobilenet_v2  MobileNetV2 0.75 at 224x224 RGB int8, 10 classes (examples/mobilenet_v2.py): 1.2 MB of arena
        layer by layer, within 176 KB in patches (samples/mobilenet_v2)

The vectors header holds fixed test inputs and, for each, the outputs of the numpy reference interpreter
(micro_relay.reference.run) on the compiled graph: what a device running the generated C must print. The
samples and the Twister suites build their models and expectations with this at build time, so no
expected number is ever copied from the code under test. Its symbols are prefixed `vectors_NAME_`, not
`NAME_`, so the budget check does not count them as part of the model.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

from ..errors import CompileError

_C_TYPES = {np.dtype(np.int8): "int8_t", np.dtype(np.uint8): "uint8_t", np.dtype(np.int16): "int16_t",
            np.dtype(np.int32): "int32_t", np.dtype(np.float32): "float"}


def _sine() -> bytes:
    from .sine_model import build_sine_model

    return build_sine_model()


def _kws() -> bytes:
    from .kws_model import build_kws_model

    return build_kws_model()


def _wake() -> bytes:
    from .kws_model import build_wake_model

    return build_wake_model()


def _wide() -> bytes:
    from .wide_model import build_wide_model

    return build_wide_model()


def _snug() -> bytes:
    from .wide_model import SNUG_UNITS, build_wide_model

    return build_wide_model(units=SNUG_UNITS)


def _mobilenet_v2() -> bytes:
    from .mobilenet_v2 import SAMPLE_WIDTH, build_mobilenet_v2

    return build_mobilenet_v2(SAMPLE_WIDTH)


MODELS = {"sine": _sine, "kws": _kws, "wake": _wake, "wide": _wide, "snug": _snug, "mobilenet_v2": _mobilenet_v2}


def _quantize(values: np.ndarray, scale: float, zero_point: int, dtype: np.dtype) -> np.ndarray:
    info = np.iinfo(dtype)
    return np.clip(np.round(values / scale) + zero_point, info.min, info.max).astype(dtype)


def sine_inputs(graph) -> tuple[list[np.ndarray], list[float]]:
    """x = k·2π/8 for k = 0..8, quantized with the model's input parameters."""
    from .sine_model import X_MAX

    ttype = graph.type_of(graph.inputs[0])
    xs = [float(np.float32(k * X_MAX / 8)) for k in range(9)]
    q = ttype.quant
    arrays = [_quantize(np.full(ttype.shape, x), q.scale, q.zero_point, ttype.dtype.numpy) for x in xs]
    return arrays, xs


def kws_inputs(graph) -> tuple[list[np.ndarray], list[float]]:
    """Two fixed feature maps: a seeded random one and a smooth ramp, both full-range int8."""
    ttype = graph.type_of(graph.inputs[0])
    rng = np.random.default_rng(20241)
    noise = rng.integers(-128, 128, size=ttype.shape).astype(ttype.dtype.numpy)
    ramp = np.linspace(-128, 127, ttype.size).round().astype(ttype.dtype.numpy).reshape(ttype.shape)
    return [noise, ramp], []


def image_inputs(graph) -> tuple[list[np.ndarray], list[float]]:
    """One seeded full-range int8 image (an image is 150 KB of flash: one is enough to check every layer)."""
    ttype = graph.type_of(graph.inputs[0])
    return [np.random.default_rng(20242).integers(-128, 128, size=ttype.shape).astype(ttype.dtype.numpy)], []


INPUTS = {"sine": sine_inputs, "kws": kws_inputs, "wake": kws_inputs, "mobilenet_v2": image_inputs}


def _c_array(values: np.ndarray) -> str:
    return "{" + ", ".join(str(int(v)) if values.dtype.kind in "iu" else repr(float(v)) + "f"
                           for v in values.ravel()) + "}"


def vectors_header(kind: str, name: str, model_path: Path) -> str:
    from ..compiler import prepare_graph
    from ..reference import run

    if kind not in INPUTS:
        raise CompileError(f"the {kind} model has no test vectors (it is compiled, never run)", "--vectors")

    graph = prepare_graph(model_path)
    if len(graph.inputs) != 1 or len(graph.outputs) != 1:
        raise CompileError("test vectors are written for one-input, one-output models only", str(model_path))
    inputs, xs = INPUTS[kind](graph)
    outputs = [run(graph, [x])[0] for x in inputs]
    in_type, out_type = _C_TYPES[inputs[0].dtype], _C_TYPES[outputs[0].dtype]
    upper, count = name.upper(), len(inputs)
    guard = f"VECTORS_{upper}_H_"
    lines = [
        f"/* Generated by micro_relay.examples.write_model from the `{kind}` model. Do not edit.",
        " * Fixed test inputs and, for each, the numpy reference interpreter's outputs. */",
        f"#ifndef {guard}", f"#define {guard}", "", "#include <stdint.h>", "",
        f"#define VECTORS_{upper}_COUNT {count}",
        f"#define VECTORS_{upper}_INPUT_SIZE {inputs[0].size}",
        f"#define VECTORS_{upper}_OUTPUT_SIZE {outputs[0].size}", "",
        f"static const {in_type} vectors_{name}_input[{count}][{inputs[0].size}] = {{",
        *[f"    {_c_array(x)}," for x in inputs], "};", "",
        f"static const {out_type} vectors_{name}_expected[{count}][{outputs[0].size}] = {{",
        *[f"    {_c_array(y)}," for y in outputs], "};", "",
    ]
    if outputs[0].size > 1:
        classes = [int(np.argmax(y.ravel())) for y in outputs]
        lines += ["/* argmax of each expected output: the class the model must pick */",
                  f"static const int vectors_{name}_class[{count}] = {{{', '.join(map(str, classes))}}};", ""]
    if xs:
        lines += ["/* the real value each input quantizes, and sin of it, in thousandths */",
                  f"static const int32_t vectors_{name}_x_milli[{count}] = "
                  f"{{{', '.join(str(int(round(x * 1000))) for x in xs)}}};",
                  f"static const int32_t vectors_{name}_sin_milli[{count}] = "
                  f"{{{', '.join(str(int(round(np.sin(x) * 1000))) for x in xs)}}};", ""]
    lines += [f"#endif /* {guard} */", ""]
    return "\n".join(lines)


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.read_bytes() == data:
        return
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".mr-")
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m micro_relay.examples.write_model", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kind", choices=sorted(MODELS), help="which model")
    parser.add_argument("output", help=".tflite file to write")
    parser.add_argument("--vectors", help="also write test vectors (a C header) to this file")
    parser.add_argument("--name", help="C name used in the vectors header (default: the kind)")
    args = parser.parse_args(argv)
    try:
        output = Path(args.output)
        _write(output, MODELS[args.kind]())
        if args.vectors:
            _write(Path(args.vectors), vectors_header(args.kind, args.name or args.kind, output).encode())
    except CompileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
