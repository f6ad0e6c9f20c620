"""One weights figure: NAME.plan.json's `weights_bytes` and the budget check's `weights` are the same arrays.

The keyword-spotting example model (a DS-CNN shape: conv, depthwise, pointwise, average pool, dense) is compiled,
its NAME.c built for a Cortex-M4 with arm-none-eabi-gcc, and the object's symbols read back: the compiler's own
symbol sizes are the measure. Each part of the plan's `weights` entry must equal the symbols of that part, and
the `weights` part the bytes of the int8 constant tensors the TFLite flatbuffer holds (read with the `tflite`
package, not with Micro Relay's reader).
"""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

from micro_relay.budget import Budget, BudgetJudge, ElfImage
from micro_relay.budget.judge import weight_parts, weights_crc
from micro_relay.compiler import compile_file
from micro_relay.examples.kws_model import build_kws_model

from .elfs import require_gcc


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    gcc = require_gcc()
    folder = tmp_path_factory.mktemp("weights_definition")
    model = folder / "kws.tflite"
    model.write_bytes(build_kws_model())
    out = folder / "out"
    compile_file(model, out, name="kws", target="cortex-m4")
    obj = folder / "kws.o"
    subprocess.run([gcc, "-mcpu=cortex-m4", "-mthumb", "-Os", "-std=c99", "-fdata-sections", "-ffunction-sections",
                    "-I", str(out), "-c", str(out / "kws.c"), "-o", str(obj)], check=True)
    plan = json.loads((out / "kws.plan.json").read_text())
    return model, plan, BudgetJudge(ElfImage(obj), Budget("test_board", None, None), ["kws"])


def test_plan_weights_are_the_budget_weights(compiled):
    _, plan, judge = compiled
    share = judge.shares["kws"]
    assert plan["weights_bytes"] == share.bytes("weights") == plan["weights"]["bytes"]
    assert weight_parts(share) == {part: plan["weights"][part] for part in
                                   ("weights", "biases", "requantization", "tables")}


def test_parts_are_broken_out(compiled):
    _, plan, judge = compiled
    parts = plan["weights"]
    assert parts["biases"] > 0 and parts["requantization"] > 0  # the int8 layers' biases, multipliers, shifts
    # the parameter structs, and the table of the arrays NAME_verify() reads
    params = sorted(s.name for s in judge.shares["kws"].parts["params"])
    assert parts["parameter_structs"] == len(params) - 1 and "kws_constant_spans" in params
    line = judge.verdict().lines[0]
    assert (f"weights {plan['weights_bytes']} B (weights {parts['weights']} B, biases {parts['biases']} B, "
            f"requantization {parts['requantization']} B) crc32 {parts['crc32']}") in line
    assert f"params {judge.shares['kws'].bytes('params')} B" in line


def test_the_budget_crc_is_the_plans(compiled):
    """The CRC the judge recomputes from the object's arrays is the one the compiler wrote (NAME.plan.json and
    NAME_WEIGHTS_CRC32), so the budget line names the weights a build holds."""
    _, plan, judge = compiled
    assert f"0x{weights_crc(judge.image, judge.shares['kws']):08x}" == plan["weights"]["crc32"]


def test_weights_part_is_the_flatbuffers_int8_tensors(compiled):
    from tflite.Model import Model
    from tflite.TensorType import TensorType

    model, plan, _ = compiled
    flat = Model.GetRootAsModel(model.read_bytes(), 0)
    graph = flat.Subgraphs(0)
    int8_constants = 0
    for index in range(graph.TensorsLength()):
        tensor = graph.Tensors(index)
        data = flat.Buffers(tensor.Buffer()).DataAsNumpy()
        if tensor.Type() == TensorType.INT8 and isinstance(data, np.ndarray) and data.size:
            int8_constants += data.size
    assert plan["weights"]["weights"] == int8_constants
