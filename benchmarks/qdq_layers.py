"""QDQ architectures against onnxruntime, end to end and layer by layer.

End to end: the logits of the compiled graph (reference interpreter = the compiled C) against onnxruntime with
optimizations off, outputs within one step. Layer by layer (tests/support/qdq_layers.py): every quantized
layer compiled on its own and fed onnxruntime's own int8 inputs, its int8 output compared with onnxruntime's;
a layer's one-step miss is then its own, not an earlier layer's carried on. Prints a Markdown table.

    python3 benchmarks/qdq_layers.py [--samples 4] [--resolution 64] [names...]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "scripts"))

DEFAULT = ["mobilenet_v2_035", "mobilenet_v2", "mobilenet_v3_small", "mnasnet1_0", "squeezenet1_1",
           "shufflenet_v2_x0_5", "efficientnet_b0", "resnet18", "kws_transformer", "unet"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=DEFAULT)
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--resolution", type=int, default=64)
    args = parser.parse_args()
    os.environ["MICRO_RELAY_ARCH_RESOLUTION"] = str(args.resolution)
    warnings.simplefilter("ignore")
    from frontend.test_mobile_architectures import _inputs, _qdq_model, _shape
    from support.ort_oracle import oracle_session, run_each
    from support.qdq_layers import compare_layers

    from micro_relay.reference.interpreter import run

    print("| architecture | layers | layer values | differ by one step | more than one | logits within one step "
          "| logits equal | worst logit (steps) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.names:
        with tempfile.TemporaryDirectory() as tmp:
            work = Path(tmp)
            path, graph = _qdq_model(name, work)
            inputs = _inputs(11, args.samples, _shape(name))
            total = differ = beyond = count = 0
            for x in inputs:
                layers = compare_layers(path, x, work)
                count = len(layers)
                total += sum(layer.size for layer in layers)
                differ += round(sum((1 - layer.equal) * layer.size for layer in layers))
                beyond += round(sum((1 - layer.within_one) * layer.size for layer in layers))
            expected = np.stack(run_each(oracle_session(path), inputs)).reshape(len(inputs), -1)
            got = np.stack([run(graph, [x])[0].reshape(-1) for x in inputs])
            last = [n for n in graph.nodes if n.op == "qnn.dequantize"][-1]
            steps = np.abs(got - expected) / graph.type_of(last.inputs[0]).quant.scale
            print(f"| {name} | {count} | {total:,} | {differ:,} | {beyond:,} | {np.mean(steps <= 1.001):.1%} "
                  f"| {np.mean(steps < 0.001):.1%} | {steps.max():.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
