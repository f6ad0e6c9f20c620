"""Benchmark: instructions per element (or per MAC) of each operator on Cortex-M4, checked against TFLite Micro.

Each case is a single-op TFLite model made by the tests' own builders (tests/support/tflite_*models.py) at a
shape real networks have. It is compiled for --target cortex-m4, run on mps2-an386 (QEMU -icount: one
instruction a tick) with `--profile`, and the op's own instructions are divided by its output elements (a
reduction's by the elements it reads), or by its MACs for the ops that multiply-accumulate. Every run's
outputs are compared with TFLite Micro's interpreter on the same inputs; a case that does not match is
reported as such, not as a number.
TFLite Micro itself is not run on the M4 here (no Cortex-M build of it is part of this project), so the table
has our numbers only; BENCHMARKS.md says so. Writes a Markdown table (BENCHMARKS-ops.md by default).

    python3 benchmarks/ops_on_m4.py [--only SUBSTRING] [--out FILE] [--machine mps2-an386]
"""

from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests"))

from micro_relay.bench.measure import bench_model  # noqa: E402
from support.tflm_oracle import tflm_run  # noqa: E402

# name -> (builder module in tests/support, builder, keyword arguments). Shapes are those of deployed models:
# [1, 49, 10, 8] keyword-spotting feature maps, [1, 12, 12, 32] mid-network maps, [1, 1280] pooled vectors.
CASES: dict[str, tuple[str, str, dict]] = {
    "ADD int8 [1,12,12,32]": ("tflite_models", "binary_model", dict(op="ADD", shape1=(1, 12, 12, 32), shape2=(1, 12, 12, 32),
                                                               quant1=(0.05, -3), quant2=(0.04, 5), out_quant=(0.08, 1))),
    "MUL int8 [1,12,12,32] x [32]": ("tflite_models", "binary_model", dict(op="MUL", shape1=(1, 12, 12, 32), shape2=(32,),
                                                                      quant1=(0.05, -3), quant2=(0.04, 5),
                                                                      out_quant=(0.01, 0), constant_second=True)),
    "ADD float32 [1,12,12,32]": ("tflite_models", "binary_model", dict(op="ADD", dtype="float32", shape1=(1, 12, 12, 32),
                                                                  shape2=(1, 12, 12, 32))),
    "LOGISTIC int8 [1,12,12,32]": ("tflite_models", "unary_model", dict(op="LOGISTIC", shape=(1, 12, 12, 32),
                                                                   in_quant=(0.1, 3), out_quant=(1 / 256, -128))),
    "TANH int8 [1,12,12,32]": ("tflite_models", "unary_model", dict(op="TANH", shape=(1, 12, 12, 32),
                                                               in_quant=(0.1, 3), out_quant=(1 / 128, 0))),
    "SOFTMAX int8 [1,12]": ("tflite_models", "unary_model", dict(op="SOFTMAX", shape=(1, 12), in_quant=(0.1, 3),
                                                            out_quant=(1 / 256, -128))),
    "MEAN int8 [1,7,7,256] -> [1,1,1,256]": ("tflite_models", "mean_model", dict(shape=(1, 7, 7, 256), axes=(1, 2))),
    "PAD int8 [1,12,12,32]": ("tflite_models", "pad_model", dict(shape=(1, 12, 12, 32),
                                                            paddings=((0, 0), (1, 1), (1, 1), (0, 0)))),
    "CONCATENATION int8 2x[1,12,12,16]": ("tflite_models", "concat_model", dict(shapes=((1, 12, 12, 16), (1, 12, 12, 16)))),
    "FULLY_CONNECTED int8 1280->12": ("tflite_models", "fully_connected_model", dict(input_shape=(1, 1280), units=12)),
    "SUM int8 [1,7,7,256] -> [1,1,1,256]": ("tflite_reduce_models", "reduce_model", dict(op="SUM", shape=(1, 7, 7, 256),
                                                                                     out_quant=(0.5, 0))),
    "REDUCE_MAX int8 [1,7,7,256] -> [1,1,1,256]": ("tflite_reduce_models", "reduce_model",
                                                   dict(op="REDUCE_MAX", shape=(1, 7, 7, 256))),
    "ARG_MAX int8 [1,12]": ("tflite_reduce_models", "arg_model", dict(shape=(1, 12))),
    "RESIZE_NEAREST_NEIGHBOR int8 [1,12,12,32] x2": ("tflite_reduce_models", "resize_model",
                                                     dict(op="RESIZE_NEAREST_NEIGHBOR")),
    "RESIZE_BILINEAR int8 [1,12,12,32] x2": ("tflite_reduce_models", "resize_model", dict(op="RESIZE_BILINEAR")),
    "RESIZE_BILINEAR float32 [1,12,12,32] x2": ("tflite_reduce_models", "resize_model",
                                                dict(op="RESIZE_BILINEAR", dtype="float32")),
    "L2_NORMALIZATION int8 [1,128]": ("tflite_reduce_models", "l2norm_model", dict(shape=(1, 128))),
    "ABS int8 [1,12,12,32]": ("tflite_unary_models", "unary_math_model", dict(op="ABS", shape=(1, 12, 12, 32))),
    "HARD_SWISH int8 [1,12,12,32]": ("tflite_unary_models", "unary_math_model",
                                     dict(op="HARD_SWISH", shape=(1, 12, 12, 32), in_quant=(0.05, 3),
                                          out_quant=(0.03, -100))),
    "ELU int8 [1,12,12,32]": ("tflite_unary_models", "unary_math_model", dict(op="ELU", shape=(1, 12, 12, 32))),
    "RSQRT int8 [1,12,12,32]": ("tflite_unary_models", "unary_math_model",
                                dict(op="RSQRT", shape=(1, 12, 12, 32), in_quant=(0.05, -128), out_quant=(0.05, -128))),
    "LOGISTIC int16 [1,12,12,32]": ("tflite_models", "unary_model", dict(op="LOGISTIC", dtype="int16", shape=(1, 12, 12, 32),
                                                                    in_quant=(1e-3, 0), out_quant=(2 ** -15, 0))),
    "TANH int16 [1,12,12,32]": ("tflite_models", "unary_model", dict(op="TANH", dtype="int16", shape=(1, 12, 12, 32),
                                                                in_quant=(1e-3, 0), out_quant=(2 ** -15, 0))),
    "EXP float32 [1,12,12,32]": ("tflite_unary_models", "unary_math_model", dict(op="EXP", dtype="float32",
                                                                              shape=(1, 12, 12, 32))),
    "MAXIMUM int8 [1,12,12,32]": ("tflite_binary_models", "binary_op_model",
                                  dict(op="MAXIMUM", shape1=(1, 12, 12, 32), shape2=(1, 12, 12, 32))),
    "SQUARED_DIFFERENCE int8 [1,12,12,32]": ("tflite_binary_models", "binary_op_model",
                                             dict(op="SQUARED_DIFFERENCE", shape1=(1, 12, 12, 32), shape2=(1, 12, 12, 32),
                                                  out_quant=(0.02, -128))),
    "GREATER int8 [1,12,12,32]": ("tflite_binary_models", "binary_op_model",
                                  dict(op="GREATER", shape1=(1, 12, 12, 32), shape2=(1, 12, 12, 32), out_quant=None)),
    "SELECT_V2 int8 [1,12,12,32]": ("tflite_binary_models", "select_model",
                                    dict(cond_shape=(1, 12, 12, 32), x_shape=(1, 12, 12, 32), y_shape=(1, 12, 12, 32))),
    "PRELU int8 [1,12,12,32]": ("tflite_binary_models", "prelu_model", dict(shape=(1, 12, 12, 32), alpha_shape=(32,))),
    "BATCH_MATMUL int8 [1,4,49,16] x [1,4,16,49]": ("tflite_binary_models", "batch_matmul_model",
                                                    dict(lhs_shape=(1, 4, 49, 16), rhs_shape=(1, 4, 16, 49),
                                                         out_quant=(0.5, 0))),
    "TRANSPOSE int8 [1,12,12,32] -> NCHW": ("tflite_movement_models", "transpose_model", dict(shape=(1, 12, 12, 32))),
    "GATHER int8 embedding [1000,32] x 8": ("tflite_movement_models", "gather_model",
                                            dict(shape=(1000, 32), indices=(3, 0, 999, 7, 500, 1, 2, 42))),
    "SPLIT int8 [1,12,12,32] in 2": ("tflite_movement_models", "split_model", dict(shape=(1, 12, 12, 32), axis=-1)),
    "SVDF int8 40 in, 64 units, memory 8": ("tflite_state_models", "svdf_model",
                                            dict(input_size=40, units=64, memory=8, dtype="int8")),
    "UNIDIRECTIONAL_SEQUENCE_LSTM int8 28x28 -> 20": ("tflite_lstm_models", "lstm_model",
                                                      dict(time=28, input_size=28, units=20)),
    "SignalWindow int16 [1,400]": ("tflite_signal_models", "window_model", dict()),
    "SignalRfft int16 512-point": ("tflite_signal_models", "rfft_model", dict(fft_length=512, shape=(512,))),
    "SignalFilterBankLog uint32 40 channels": ("tflite_signal_models", "filter_bank_log_model", dict()),
    "audio front end 480 samples -> 40 features (10 signal ops)": ("tflite_signal_models", "front_end_model", dict()),
    "SignalIrfft int16 512-point": ("tflite_signal_models", "irfft_model", dict(fft_length=512)),
    "SignalDelay int16 [2,160] by 80": ("tflite_stream_models", "delay_model", dict(shape=(2, 160), delay_length=80)),
    "SignalFramer int16 160 -> 480-sample frames, prefilled": ("tflite_stream_models", "framer_model",
                                                               dict(shape=(160,), frame_size=480, frame_step=160,
                                                                    prefill=True)),
    "SignalStacker int16 40 channels, 3 left": ("tflite_stream_models", "stacker_model",
                                                dict(channels=40, left=3, right=0, step=1)),
    "SignalOverlapAdd int16 [2,512] step 128": ("tflite_stream_models", "overlap_add_model",
                                                dict(shape=(2, 512), frame_step=128)),
}
REDUCING_OPS = {"mean", "sum", "max", "min", "prod", "argmax", "argmin"}  # charged per element read
MAC_OPS = {"nn.conv2d", "nn.depthwise_conv2d", "nn.dense", "nn.conv2d_transpose", "nn.batch_matmul", "nn.lstm", "nn.svdf"}


def build(module: str, builder: str, kwargs: dict) -> bytes:
    return getattr(importlib.import_module(f"support.{module}"), builder)(**kwargs)


def tflm_oracle(model: bytes, outputs: int):
    def tflite_micro(inputs):
        return tflm_run(model, [np.asarray(x) for x in inputs], num_outputs=outputs)

    return tflite_micro


def measure(name: str, model: bytes, machine: str) -> dict:
    from micro_relay.frontend.tflite import read_tflite

    graph = read_tflite(model, name)
    with tempfile.TemporaryDirectory() as work:
        path = Path(work) / "case.tflite"
        path.write_bytes(model)
        result = bench_model(path, machine, name="op", runs=1, profile=True, target="cortex-m4",
                             oracle=tflm_oracle(model, len(graph.outputs)))
    layers = [layer for layer in result["layers"] if layer["op"] not in ("reshape",)]
    instructions = sum(layer["instructions"] for layer in layers)
    macs = sum(layer["macs"] for layer in layers if layer["op"] in MAC_OPS)
    sizes = {name: int(np.prod(graph.tensors[name].type.shape)) for name in (*graph.inputs, *graph.outputs)}
    reduces = any(layer["op"] in REDUCING_OPS for layer in layers)
    elements = (max(sizes[n] for n in graph.inputs) if reduces else sum(sizes[n] for n in graph.outputs))
    return {"name": name, "ops": ", ".join(sorted({layer["op"] for layer in layers})),
            "instructions": instructions, "per": "MAC" if macs else "element", "count": macs or elements,
            "match": result["outputs_match"]}


def table(rows: list[dict], machine: str) -> str:
    lines = [f"| case ({machine}, --target cortex-m4) | IR ops | instructions | per | instructions per |"
             " outputs equal TFLite Micro |", "|---|---|---:|---|---:|---|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['name']} | | | | | error: {r['error']} |")
            continue
        per = f"{r['instructions'] / r['count']:.2f}" if r["match"] else "n/a"
        lines.append(f"| {r['name']} | {r['ops']} | {r['instructions']:,} | {r['per']} ({r['count']:,}) | {per} |"
                     f" {'yes' if r['match'] else 'NO'} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="", help="run the cases whose name contains this text")
    parser.add_argument("--out", default="BENCHMARKS-ops.md")
    parser.add_argument("--machine", default="mps2-an386")
    args = parser.parse_args()
    rows = []
    for name, (module, builder, kwargs) in CASES.items():
        if args.only.lower() not in name.lower():
            continue
        try:
            rows.append(measure(name, build(module, builder, kwargs), args.machine))
        except Exception as exc:  # a case that cannot be built or run is a row, not the end of the table
            rows.append({"name": name, "error": str(exc).splitlines()[0] if str(exc) else type(exc).__name__})
        print(table(rows[-1:], args.machine).splitlines()[-1], flush=True)
    text = table(rows, args.machine)
    Path(args.out).write_text(text)
    print(f"wrote {args.out}")
    return 0 if rows and all("error" not in r and r["match"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
