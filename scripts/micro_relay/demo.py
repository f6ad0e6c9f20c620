"""The demo: generate a small model of our own, compile it to C, build and run the C on this machine,
and print its outputs next to the true values and the memory plan.

    python3 -m micro_relay.demo [--out demo-out] [--cc cc]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

from .compiler import compile_file
from .examples.sine_model import X_MAX, build_sine_model

DEMO_MAIN = r"""
#include <math.h>
#include <stdio.h>
#include "sine.h"

/* Quantize x, run the model, dequantize y: the whole application side of Micro Relay's C API. */
int main(void)
{
    int i;
    printf("%8s %10s %10s\n", "x", "sin(x)", "model");
    for (i = 0; i < 9; ++i) {
        const float x = (float)i * %(step)sf;
        long q = (long)(x / SINE_INPUT0_SCALE + (x >= 0 ? 0.5f : -0.5f)) + SINE_INPUT0_ZERO_POINT;
        int8_t *in = (int8_t *)sine_input(0);
        const int8_t *out;
        in[0] = (int8_t)(q < -128 ? -128 : (q > 127 ? 127 : q));
        if (sine_invoke() != 0) {
            return 1;
        }
        out = (const int8_t *)sine_output(0);
        printf("%8.3f %10.3f %10.3f\n", x, sin(x), (out[0] - SINE_OUTPUT0_ZERO_POINT) * SINE_OUTPUT0_SCALE);
    }
    printf("arena: %u bytes\n", (unsigned)SINE_ARENA_SIZE);
    return 0;
}
"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default="demo-out", help="folder for the model, the C and the program")
    parser.add_argument("--cc", default=shutil.which("cc") or "gcc", help="host C compiler")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    model_path = out / "sine.tflite"
    model_path.write_bytes(build_sine_model())
    print(f"1. generated {model_path}: a 1-16-16-1 int8 network trained on sin(x), x in [0, 2π]")

    c_dir = out / "c"
    model = compile_file(model_path, c_dir, name="sine")
    print(f"2. compiled to {c_dir}/: " + ", ".join(sorted(p.name for p in c_dir.glob("*.[ch]"))))

    step = X_MAX / 8
    (c_dir / "main.c").write_text(DEMO_MAIN.replace("%(step)s", repr(float(np.float32(step)))))
    exe = out / "sine_demo"
    cmd = [args.cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-O2", "-I", str(c_dir),
           *sorted(str(p) for p in c_dir.glob("*.c")), "-o", str(exe), "-lm"]
    subprocess.run(cmd, check=True)
    print(f"3. built {exe} with: {' '.join(cmd[:6])} ... -lm")

    result = subprocess.run([str(exe)], check=True, capture_output=True, text=True)
    print("4. ran it:")
    for line in result.stdout.splitlines():
        print("   " + line)

    report = json.loads((c_dir / "sine.plan.json").read_text())
    print(f"5. memory plan: arena {report['arena_bytes']} B (lower bound {report['lower_bound_bytes']} B), "
          f"weights {report['weights_bytes']} B in flash, {report['macs']} MACs per inference")
    for t in report["tensors"]:
        print(f"   {t['name']:<12} {t['bytes']:>4} B  offset {t['offset']:>4}  live steps {t['first_use']}..{t['last_use']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
