"""The models the samples and Twister suites generate, checked without Zephyr.

- the DS-CNN-shaped keyword-spotting model is a valid TFLite model: TFLite Micro runs it, and the compiled
  C (built on the host) and the reference interpreter agree with it byte for byte;
- write_model's vectors header holds the reference interpreter's outputs for its inputs, and compiles
  warning-free with the generated model under strict flags.
"""

from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest

from micro_relay.compiler import compile_file, prepare_graph
from micro_relay.examples import write_model
from micro_relay.examples.kws_model import CLASSES, INPUT_SHAPE, build_kws_model, build_wake_model
from micro_relay.reference import run
from support.c_harness import STRICT_FLAGS


@pytest.fixture(scope="module")
def kws_bytes() -> bytes:
    return build_kws_model()


def test_kws_model_is_deterministic(kws_bytes):
    assert build_kws_model() == kws_bytes


def test_kws_model_shape(kws_bytes, tmp_path):
    path = tmp_path / "kws.tflite"
    path.write_bytes(kws_bytes)
    graph = prepare_graph(path)
    assert graph.type_of(graph.inputs[0]).shape == INPUT_SHAPE
    assert graph.type_of(graph.outputs[0]).shape == (1, CLASSES)
    assert [node.op for node in graph.nodes] == [
        "nn.conv2d", *["nn.depthwise_conv2d", "nn.conv2d"] * 4, "nn.avg_pool2d", "reshape", "nn.dense", "nn.softmax"]


@pytest.mark.parametrize("kind", ["kws", "wake"])
def test_kws_model_matches_tflite_micro(kind):
    pytest.importorskip("tflite_micro", reason="TFLite Micro's Python interpreter is not installed")
    from support.model_check import assert_matches, compare_with_tflm

    model = build_kws_model() if kind == "kws" else build_wake_model()
    assert_matches(compare_with_tflm(model, seeds=(0, 1), name=kind))


def test_the_wake_gate_opens_on_one_test_input_and_not_the_other(tmp_path):
    """samples/cascade runs both of its paths: TFLite Micro picks class 0 for one fixed input, 1 for the other."""
    pytest.importorskip("tflite_micro", reason="TFLite Micro's Python interpreter is not installed")
    from support.tflm_oracle import tflm_run

    path = tmp_path / "wake.tflite"
    path.write_bytes(build_wake_model())
    inputs, _ = write_model.kws_inputs(prepare_graph(path))
    assert sorted(int(np.argmax(tflm_run(path.read_bytes(), [x])[0])) for x in inputs) == [0, 1]


def _arrays(header: str, name: str) -> np.ndarray:
    body = re.search(rf"{name}\[\d+\]\[\d+\] = \{{(.*?)\n\}};", header, re.S).group(1)
    return np.array([[int(v) for v in row.split(",") if v.strip()] for row in re.findall(r"\{([^}]*)\}", body)])


@pytest.mark.parametrize("kind", ["sine", "kws", "wake"])
def test_vectors_are_reference_outputs(kind, tmp_path):
    model, header_path = tmp_path / f"{kind}.tflite", tmp_path / f"{kind}_vectors.h"
    assert write_model.main([kind, str(model), "--vectors", str(header_path)]) == 0
    header = header_path.read_text()
    inputs, expected = _arrays(header, f"vectors_{kind}_input"), _arrays(header, f"vectors_{kind}_expected")
    graph = prepare_graph(model)
    for x, y in zip(inputs, expected):
        out = run(graph, [x.astype(np.int8).reshape(graph.type_of(graph.inputs[0]).shape)])[0]
        np.testing.assert_array_equal(out.ravel(), y)
    if kind != "sine":
        classes = re.search(rf"vectors_{kind}_class\[\d+\] = \{{([^}}]*)\}}", header).group(1)
        assert [int(c) for c in classes.split(",")] == [int(np.argmax(y)) for y in expected]

    # The header and the generated model compile together, warning-free (as the samples use them).
    out = tmp_path / "c"
    compile_file(model, out, name=kind)
    main = out / "main.c"
    main.write_text(f'#include "{kind}.h"\n#include "{kind}_vectors.h"\n#include <string.h>\n'
                    f"int main(void) {{ memcpy({kind}_input(0), vectors_{kind}_input[0], "
                    f"sizeof(vectors_{kind}_input[0])); return {kind}_invoke() != 0 || "
                    f"memcmp({kind}_output(0), vectors_{kind}_expected[0], "
                    f"sizeof(vectors_{kind}_expected[0])) != 0; }}\n")
    header_path.rename(out / header_path.name)
    exe = tmp_path / "program"
    subprocess.run(["gcc", *STRICT_FLAGS, "-I", str(out), *map(str, sorted(out.glob("*.c"))), "-o", str(exe), "-lm"],
                   check=True)
    assert subprocess.run([str(exe)]).returncode == 0


def test_write_model_rejects_unknown_kind(tmp_path, capsys):
    with pytest.raises(SystemExit):
        write_model.main(["resnet", str(tmp_path / "x.tflite")])
