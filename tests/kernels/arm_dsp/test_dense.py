"""The int8 FULLY_CONNECTED kernel's DSP paths (crt/src/mr_dense.c), run on mps2-an386 (Cortex-M4) and
mps2-an500 (Cortex-M7) and compared byte for byte with TFLite Micro's interpreter on the same inputs (and with
the reference interpreter, through the bench's outputs_match).

Each small model drives one branch: blocks of 4 units requantized in the assembly routine (per-tensor layers
whose mr_requant_zp constants the compiler made), with an even or odd count of 4-value groups, one group only
and a depth of 8; a last block of fewer than 4 units (the block of the last four, which repeats some); raw
accumulators finished in C for a depth that is not a multiple of 4, per-channel layers, a clamp narrower than
int8 (RELU6) and output scales whose shift lies outside mr_requant_zp's [-21, -2] (both sides of each end);
one unit at a time for fewer than 4 units or fewer than 4 values; several rows. A host test checks that each
model takes the path its name says (the plan report's kernel field), so the device runs cover what they claim.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from micro_relay.bench.measure import bench_model
from micro_relay.compiler import compile_graph, prepare_graph
from micro_relay.lower import lower
from support.tflite_models import fully_connected_model
from support.tflm_oracle import tflm_run

MACHINES = ("mps2-an386", "mps2-an500")
SEED = 1

IN_ASM = "requantized there (mr_requant_zp, SSAT)"
IN_C = "requantized in C"
ONE_BY_ONE = "one unit at a time (C)"

# name: (fully_connected_model arguments, a fragment of the DSP kernel path, the layer's shift or None)
CASES = {
    # 16 groups of 4 values (even), 12 units (3 whole blocks), ReLU with out_zp -128: int8's clamp
    "asm_even_groups": (dict(input_shape=(1, 64), units=12, activation="RELU", in_zp=-128, out_zp=-128,
                             seed=31), IN_ASM, None),
    # 5 groups (odd: the unrolled loop starts at its second half), 10 units (last block repeats 2), 3 rows
    "asm_odd_groups_rows": (dict(input_shape=(3, 20), units=10, in_zp=5, out_zp=-7, seed=32),
                            IN_ASM + "; the last block repeats 2 unit(s)", None),
    # one group of 4 values, 5 units, rows kept as a [2, 3] batch
    "asm_one_group": (dict(input_shape=(2, 3, 4), units=5, keep_num_dims=True, in_zp=-1, out_zp=3, seed=33),
                      IN_ASM + "; the last block repeats 3 unit(s)", None),
    # depth 8 (ad01's 8 -> 128 shape, smaller), exactly 4 units
    "asm_depth8": (dict(input_shape=(2, 8), units=4, in_zp=-128, out_zp=-128, seed=34), IN_ASM, None),
    # 64 rows of 64 units: 4,096 outputs, enough to see a rounding slip of the assembly's requantization
    "asm_many_rows": (dict(input_shape=(64, 16), units=64, out_spread=0.3, in_zp=2, out_zp=-5, seed=46), IN_ASM,
                      -5),
    # the ends of mr_requant_zp's range: shift -2 (k = 1) and -21 (k = 20), with output zero points
    "asm_shift_m2": (dict(input_shape=(2, 16), units=8, out_spread=0.03, in_zp=3, out_zp=11, seed=35), IN_ASM, -2),
    "asm_shift_m21": (dict(input_shape=(2, 16), units=8, out_spread=15000.0, in_zp=-9, out_zp=100, seed=36),
                      IN_ASM, -21),
    # just outside: shift -1, a positive shift (a tiny output scale) and -22 (a huge one)
    "c_shift_m1": (dict(input_shape=(2, 16), units=8, out_spread=0.02, in_zp=3, out_zp=-3, seed=37), IN_C, -1),
    "c_shift_positive": (dict(input_shape=(2, 16), units=6, out_spread=0.003, in_zp=-2, out_zp=1, seed=38),
                         IN_C + "; the last block repeats 2 unit(s)", 1),
    "c_shift_m22": (dict(input_shape=(2, 16), units=8, out_spread=40000.0, in_zp=7, out_zp=-90, seed=39), IN_C,
                    -22),
    # depth 37: 9 groups and 1 value left, 9 units, 3 rows, per-tensor
    "c_depth_tail": (dict(input_shape=(3, 37), units=9, in_zp=4, out_zp=-2, seed=40),
                     IN_C + " after the last 1 value(s); the last block repeats 3 unit(s)", None),
    # depth 7: one group and 3 values left
    "c_depth7": (dict(input_shape=(2, 7), units=6, in_zp=-128, out_zp=-128, seed=41),
                 IN_C + " after the last 3 value(s); the last block repeats 2 unit(s)", None),
    # per-channel: each unit's own multiplier and shift, 7 units, 2 rows
    "c_per_channel": (dict(input_shape=(2, 24), units=7, per_channel=True, in_zp=9, out_zp=-5, seed=42),
                      IN_C + "; the last block repeats 1 unit(s)", None),
    # RELU6 with out_zp -20: a clamp narrower than int8 on both sides
    "c_relu6": (dict(input_shape=(3, 32), units=8, activation="RELU6", in_zp=-128, out_zp=-20, out_spread=1.0,
                     seed=43), IN_C, None),
    # fewer than 4 units, fewer than 4 values
    "c_three_units": (dict(input_shape=(2, 24), units=3, in_zp=6, out_zp=2, seed=44), ONE_BY_ONE, None),
    "c_depth3": (dict(input_shape=(4, 3), units=6, in_zp=-3, out_zp=5, seed=45), ONE_BY_ONE, None),
}


def _write(folder, name):
    path = folder / f"{name}.tflite"
    path.write_bytes(fully_connected_model(**CASES[name][0]))
    return path


def _dense(path):
    """The graph and its dense node lowered for cortex-m4 (the op's constants and the DSP kernel's plan)."""
    graph = prepare_graph(path)
    (node,) = [n for n in lower(graph, "cortex-m4").nodes if n.node.op == "nn.dense"]
    return graph, node


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_takes_its_path(tmp_path, name):
    """The DSP path the plan report names for each model (so the device tests below cover each branch)."""
    _, fragment, shift = CASES[name]
    path = _write(tmp_path, name)
    graph, low = _dense(path)
    p = low.params
    report = json.loads(compile_graph(graph, "m", str(path), target="cortex-m4").files["m.plan.json"])
    (node,) = [n for n in report["nodes"] if n["op"] == "nn.dense"]
    assert node["kernel"]["arm_dsp"].endswith(fragment), node["kernel"]
    if shift is not None:
        assert list(p["shift"]) == [shift]
    if name == "c_relu6":
        assert -128 < p["act_min"] and p["act_max"] < 127
    assert (low.plan.requant is not None) == (IN_ASM in fragment)


@pytest.fixture(scope="module")
def device(arm_tools, tmp_path_factory):
    """device(name, machine): the bench result, the device's output and TFLite Micro's on the same input."""
    folder = tmp_path_factory.mktemp("dsp_dense")
    cache = {}

    def run(name, machine):
        if (name, machine) not in cache:
            path = _write(folder, name)
            keep = folder / f"{name}-{machine}"
            result = bench_model(path, machine, runs=1, seed=SEED, keep=keep)
            graph, _ = _dense(path)
            (inp,), (out,) = graph.inputs, graph.outputs
            x = np.frombuffer((keep / "input.bin").read_bytes(), np.int8).reshape(CASES[name][0]["input_shape"])
            y = np.frombuffer((keep / "output.bin").read_bytes(), np.int8)
            assert x.size == graph.type_of(inp).size and y.size == graph.type_of(out).size
            (expected,) = tflm_run(path.read_bytes(), [x.copy()])
            cache[(name, machine)] = (result, y, np.asarray(expected).reshape(-1))
        return cache[(name, machine)]

    return run


@pytest.mark.parametrize("machine", MACHINES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_dense_matches_tflite_micro_on_device(device, name, machine):
    result, got, expected = device(name, machine)
    assert result["outputs_match"] is True and result["max_abs_diff"] == 0, result
    np.testing.assert_array_equal(got, expected)
