"""Build a compiled model's output folder into a host program and run it on many inputs in one process.

The program reads, for each sample, every input's bytes in order from stdin, invokes the model, and writes
every output's bytes to stdout, until stdin ends.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np

STRICT_FLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]

MAIN_TEMPLATE = r"""
#include <stdio.h>
#include "{name}.h"

int main(void)
{{
    for (;;) {{
        int i;
        for (i = 0; i < {macro}_NUM_INPUTS; ++i) {{
            size_t n = {name}_input_size(i);
            if (fread({name}_input(i), 1, n, stdin) != n) {{
                return 0;
            }}
        }}
        if ({name}_invoke() != 0) {{
            return 3;
        }}
        for (i = 0; i < {macro}_NUM_OUTPUTS; ++i) {{
            fwrite({name}_output(i), 1, {name}_output_size(i), stdout);
        }}
        fflush(stdout);
    }}
}}
"""


def build_host_program(out_dir: Path, name: str, cc: str = "gcc", extra_flags=("-O2",)) -> Path:
    main_c = out_dir / "harness_main.c"
    main_c.write_text(MAIN_TEMPLATE.format(name=name, macro=name.upper()))
    exe = out_dir / "model_harness"
    sources = sorted(str(p) for p in out_dir.glob("*.c"))
    cmd = [cc, *STRICT_FLAGS, *extra_flags, "-I", str(out_dir), *sources, "-o", str(exe), "-lm"]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        raise AssertionError(f"C build failed:\n{' '.join(cmd)}\n{result.stderr[-4000:]}")
    return exe


def run_host_program(exe: Path, samples: list[list[np.ndarray]], output_types: list[tuple[np.dtype, tuple]]) -> list[list[np.ndarray]]:
    """Run the program on samples (each a list of input arrays); returns each sample's outputs."""
    stdin = b"".join(np.ascontiguousarray(x).tobytes() for sample in samples for x in sample)
    result = subprocess.run([str(exe)], input=stdin, capture_output=True, timeout=300)
    if result.returncode != 0:
        raise AssertionError(f"model program exited {result.returncode}: {result.stderr[-2000:]!r}")
    data = result.stdout
    outputs, pos = [], 0
    for _ in samples:
        sample_out = []
        for dtype, shape in output_types:
            n = int(np.prod(shape)) * np.dtype(dtype).itemsize
            sample_out.append(np.frombuffer(data[pos:pos + n], dtype=dtype).reshape(shape))
            pos += n
        outputs.append(sample_out)
    if pos != len(data):
        raise AssertionError(f"model program wrote {len(data)} bytes, expected {pos}")
    return outputs


def compile_and_run(graph, samples: list[list[np.ndarray]], out_dir: Path, name: str = "model") -> list[list[np.ndarray]]:
    """Compile an optimized graph to C in out_dir, build it strictly on the host, run it on the samples."""
    from micro_relay.compiler import compile_graph, write_output

    write_output(compile_graph(graph, name, "test graph"), out_dir)
    exe = build_host_program(Path(out_dir), name)
    output_types = [(graph.type_of(n).dtype.numpy, graph.type_of(n).shape) for n in graph.outputs]
    shaped = [[np.ascontiguousarray(x, dtype=graph.type_of(n).dtype.numpy).reshape(graph.type_of(n).shape)
               for x, n in zip(sample, graph.inputs)] for sample in samples]
    return run_host_program(exe, shaped, output_types)
