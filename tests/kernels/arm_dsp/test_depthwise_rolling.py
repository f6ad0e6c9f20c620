"""The int8 depthwise strip kernel with rolling strips (crt/src/mr_depthwise_conv2d.c: every strip entry point rolls
when its scratch holds the rolling strips, which the kernel's rolling option plans), run on mps2-an386 (Cortex-M4,
DSP extension) and compared with the reference interpreter, which is bit-exact with TFLite Micro.

Each case forces the attribute on its one depthwise layer (the compiler sets it only where the arena has room)
and drives one part of the row rolling: strides 1 and 2 (k_h - stride_h rows kept), zero rows above and below
the image (SAME padding; padding larger than the window, where whole windows and some new rows lie above or
below the image), VALID padding, rows of several chunks (a strip per chunk and fill, the last chunk narrower),
leftover channels, one input channel shared by the blocks (multipliers 4 and 8), two batch images (the strips
filled afresh at each image's first row), windows other than 3x3 (the C tap loop), and blocks whose sums the
assembly leaves to C (raw sums) or requantizes with shift -1. A structural test checks that each case calls the
entry point its table names with the scratch of rolling strips, which is what makes the kernel roll.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from micro_relay.bench.measure import bench_graph
from micro_relay.compiler import compile_graph, prepare_graph
from micro_relay.ir.graph import Graph, Node, Tensor
from micro_relay.ir.registry import get_op
from micro_relay.ir.types import DType, Quant, TensorType
from micro_relay.ir.verify import verify
from micro_relay.kernels.arm_dsp.depthwise_conv2d import _asm_requantizes, dsp_scratch_bytes
from micro_relay.lower import lower
from support.cortex_m_cases import BOARD, assert_bit_exact, options_on, tflite_micro
from support.tflite_models import depthwise_model

pytestmark = pytest.mark.usefixtures("strip_always")  # these cases test the strip kernel itself

OP = "nn.depthwise_conv2d"

# name: (kwargs of depthwise_model, the entry point's suffix). Comments name what each case drives.
MODELS = {
    # stride 1, SAME: a zero row above the image at the first output row and below it at the last; 37 output
    # pixels a row (chunks of 16, 16 and 5), the full int8 range with ReLU6
    "s1_same_wide": (dict(input_shape=(1, 7, 37, 8), in_zp=-128, out_zp=-128, activation="RELU6", seed=50),
                     "_strip3x3_fast"),
    # stride 2, SAME on 9 rows: padding above and below; 19 output pixels a row (chunks of 16 and 3), 12 channels
    "s2_same_pad_both": (dict(input_shape=(1, 9, 38, 12), stride=(2, 2), in_zp=6, out_zp=2, seed=51),
                         "_strip3x3_fast"),
    # stride 2, SAME on 10 rows: padding below only (the last row's new rows: one extended, one zero)
    "s2_same_pad_bottom": (dict(input_shape=(1, 10, 9, 8), stride=(2, 2), in_zp=-3, seed=52), "_strip3x3_fast"),
    # VALID, stride 1: every new row inside the image; 18 output pixels a row (chunks of 16 and 2)
    "s1_valid": (dict(input_shape=(1, 8, 20, 8), padding="VALID", in_zp=7, out_zp=-5, seed=53), "_strip3x3_fast"),
    # VALID, stride 2
    "s2_valid": (dict(input_shape=(1, 9, 10, 8), stride=(2, 2), padding="VALID", in_zp=-128, out_zp=-128,
                      activation="RELU", seed=54), "_strip3x3_fast"),
    # 10 channels, multiplier 1: two blocks of 4 roll, and a partial third of 2 channels (gathered, raw sums)
    "m1_leftovers": (dict(input_shape=(1, 6, 19, 10), in_zp=3, seed=55), "_strip3x3"),
    # 7 channels with a large output scale: a raw whole block, then a partial one of 3 channels
    "m1_partial_raw": (dict(input_shape=(1, 6, 20, 7), in_zp=-5, out_zp=3, out_spread=0.03, seed=66), "_strip3x3"),
    # multiplier 2 on 3 channels: lanes (0, 0, 1, 1) gathered, then (2, 2) in a partial block; rows of 20 pixels
    "m2_gathered": (dict(input_shape=(1, 7, 20, 3), depth_multiplier=2, in_zp=6, activation="RELU6", seed=67),
                    "_strip3x3"),
    # multiplier 2 on 5 channels at stride 2, and multiplier 3 with a 5x3 window (the C tap loop), gathered
    "m2_c5_s2": (dict(input_shape=(1, 9, 19, 5), depth_multiplier=2, stride=(2, 2), in_zp=-8, seed=68),
                 "_strip3x3"),
    "m3_k5x3": (dict(input_shape=(1, 8, 18, 2), kernel=(5, 3), depth_multiplier=3, in_zp=2, seed=69), "_strip"),
    # the C tap loop over 7 channels with a large output scale: a raw partial block, whose lanes past out_c have
    # no constants (only its 3 lanes are requantized)
    "k5x3_partial_raw": (dict(input_shape=(1, 7, 12, 7), kernel=(5, 3), in_zp=-4, out_zp=1, out_spread=0.03,
                              seed=70), "_strip"),
    # multiplier 4, 3 input channels: one strip per input channel, in all four lanes; 21 pixels a row
    "m4_replicate": (dict(input_shape=(1, 6, 21, 3), depth_multiplier=4, in_zp=-9, activation="RELU6", seed=56),
                     "_strip3x3_fast"),
    # multiplier 8, 2 input channels, stride 2, rows of 19 pixels: two blocks share each channel's strip
    "m8_s2_wide": (dict(input_shape=(1, 9, 37, 2), depth_multiplier=8, stride=(2, 2), in_zp=-1, seed=57),
                   "_strip3x3_fast"),
    # two batch images: the strips start afresh at the second image's first row
    "batches2_s1": (dict(input_shape=(2, 6, 18, 8), in_zp=4, out_zp=-6, seed=58), "_strip3x3_fast"),
    "batches2_m4_s2": (dict(input_shape=(2, 7, 9, 2), depth_multiplier=4, stride=(2, 2), in_zp=-7, seed=59),
                       "_strip3x3_fast"),
    # 5x5 at stride 1 (4 rows kept, two zero rows above and below) and 2 (3 kept): the C tap loop
    "k5x5_s1": (dict(input_shape=(1, 9, 20, 4), kernel=(5, 5), in_zp=3, seed=60), "_strip"),
    "k5x5_s2": (dict(input_shape=(1, 11, 12, 8), kernel=(5, 5), stride=(2, 2), in_zp=-2, seed=61), "_strip"),
    # 3x1 (one column a window) and 4x3 at strides (2, 1) (2 rows kept); 5x3 at strides (1, 2) over two batch
    # images with a channel left over
    "k3x1": (dict(input_shape=(1, 8, 20, 8), kernel=(3, 1), in_zp=5, out_zp=1, seed=62), "_strip"),
    "k4x3_s2x1": (dict(input_shape=(1, 9, 10, 8), kernel=(4, 3), stride=(2, 1), in_zp=-4, seed=63), "_strip"),
    "k5x3_batches2": (dict(input_shape=(2, 7, 6, 5), kernel=(5, 3), stride=(1, 2), in_zp=3, seed=64), "_strip"),
    # a large output scale: shifts 0 and -1 in some blocks, which leave raw sums to C, only -2 and below in
    # another (multiplier 1); shifts from +1 down, every block raw (multiplier 4)
    "raw_sums_m1": (dict(input_shape=(1, 6, 20, 16), in_zp=3, out_zp=-2, out_spread=0.03, seed=65),
                    "_strip3x3_x4"),
    "raw_sums_m4": (dict(input_shape=(1, 5, 9, 2), depth_multiplier=4, in_zp=-4, out_zp=1, out_spread=0.008,
                         seed=41), "_strip3x3_x4"),
    # shifts -1 to -3: the assembly's longer requantization, with ReLU6
    "shift1": (dict(input_shape=(1, 6, 20, 8), in_zp=3, out_zp=-2, out_spread=0.03, activation="RELU6", seed=40),
               "_strip3x3_shift1"),
}

# name: (input shape, window, multiplier, strides, padding (top, left, bottom, right), entry point). Padding that
# TFLite cannot express, above the window's height: windows wholly above (and below) the image, and at later
# output rows new rows above the image (at stride 2 a row above it and one inside it); with two batch images
# and no padding below, the second image's first rows are zeros where the first image's last rows were.
GRAPHS = {
    "pad_beyond_window_s1": ((1, 5, 7, 8), (3, 3), 1, (1, 1), (4, 1, 4, 2), "_strip3x3_fast"),
    "pad_beyond_window_s2": ((1, 6, 9, 4), (3, 3), 4, (2, 2), (4, 0, 5, 1), "_strip3x3_fast"),
    "pad_beyond_window_k5": ((1, 4, 6, 4), (5, 3), 1, (1, 1), (6, 1, 6, 1), "_strip"),
    "pad_beyond_top_batches2": ((2, 5, 7, 8), (3, 3), 1, (1, 1), (4, 1, 0, 1), "_strip3x3_fast"),
}


def _ir_graph(x_shape, kernel, multiplier, strides, padding, seed: int = 0) -> Graph:
    """x -> nn.depthwise_conv2d(x, w, b) -> y in int8, random constants, per-channel weight scales and an output
    scale that keeps most outputs inside int8."""
    rng = np.random.default_rng(seed)
    channels = x_shape[3] * multiplier
    w_shape = (1, *kernel, channels)
    scales = tuple(float(0.01 * 2.0 ** e) for e in rng.uniform(-1, 1, channels))
    typical = 74.0 * 73.0 * math.sqrt(kernel[0] * kernel[1])
    tensors = {
        "x": Tensor("x", TensorType(tuple(x_shape), DType.INT8, Quant.tensor(0.05, -3))),
        "w": Tensor("w", TensorType(w_shape, DType.INT8, Quant(scales, (0,) * channels, 3)),
                    rng.integers(-127, 128, w_shape).astype(np.int8)),
        "b": Tensor("b", TensorType((channels,), DType.INT32),
                    rng.integers(-int(typical), int(typical) + 1, channels).astype(np.int32)),
    }
    out_quant = Quant.tensor(0.05 * float(np.mean(scales)) * typical * 3.0 / 127, 4)
    node = Node(OP, ("x", "w", "b"), ("y",), dict(strides=strides, padding=padding, depth_multiplier=multiplier))
    tensors["y"] = Tensor("y", TensorType((1,), DType.INT8, out_quant))  # until the op infers it
    (y,) = get_op(OP).infer(Graph(tensors, (node,), ("x",), ("y",)), node)
    tensors["y"] = Tensor("y", TensorType(y.shape, DType.INT8, out_quant))
    return verify(Graph(tensors, (node,), ("x",), ("y",)))


def _case_graph(folder: Path, name: str) -> Graph:
    """The case's graph (compile it with rolling(graph): rolling strips forced)."""
    if name in GRAPHS:
        return _ir_graph(*GRAPHS[name][:5], seed=list(GRAPHS).index(name))
    path = folder / f"{name}.tflite"
    path.write_bytes(depthwise_model(**MODELS[name][0]))
    return prepare_graph(path)


def rolling(graph: Graph) -> dict[int, dict]:
    """Kernel options forcing rolling strips on the graph's depthwise layer."""
    return options_on(graph, OP, {"rolling": True})


CASES = sorted([*MODELS, *GRAPHS])


@pytest.fixture(scope="module")
def results(arm_tools, tmp_path_factory, strip_always):
    """Every case benched once on the Cortex-M4 board."""
    folder = tmp_path_factory.mktemp("dw_rolling")
    graphs = {name: _case_graph(folder, name) for name in CASES}
    # TFLite Micro is the oracle of the model files; the IR graphs (padding past the window, which no TFLite
    # file holds) are compared with the reference interpreter
    oracles = {name: tflite_micro((folder / f"{name}.tflite").read_bytes()) for name in MODELS}
    return {name: bench_graph(graph, name, str(folder / f"{name}.tflite"), BOARD, seed=1, runs=1,
                              kernel_options=rolling(graph), oracle=oracles.get(name))
            for name, graph in graphs.items()}


@pytest.mark.parametrize("name", CASES)
def test_rolling_strips_match_tflite_micro_on_cortex_m4(results, name):
    assert_bit_exact(results[name])


@pytest.mark.parametrize("name", CASES)
def test_case_plans_rolling_strips(tmp_path, name):
    """The generated C calls the entry point the table names with the scratch of rolling strips: the kernel rolls
    exactly when p->scratch_bytes holds dsp_scratch_bytes(g, rolling=True), computed in C from the geometry, and
    the next output row reads rows again (no row dilation, stride_h < k_h). With one chunk and one strip fill
    (k5x3_batches2, pad_beyond_window_k5) the rolling strips take what the plain strip takes: the kernel rolls
    there with or without the option. The raw-sums cases have blocks the assembly does not
    requantize, and the others' geometry is what the comment says."""
    graph = _case_graph(tmp_path, name)
    lowered = lower(graph, "cortex-m4", options=rolling(graph))
    (node,) = [n for n in lowered.nodes if n.node.op == OP]
    p = node.params
    entry = (GRAPHS[name] if name in GRAPHS else MODELS[name])[-1]
    source = "".join(compile_graph(graph, "case_model", "test", target="cortex-m4",
                                   kernel_options=rolling(graph)).files.values())
    g = p["geometry"]
    scratch = dsp_scratch_bytes(g, rolling=True)
    assert node.plan.rolling and node.plan.scratch_bytes == scratch >= dsp_scratch_bytes(g)
    assert f"mr_depthwise_conv2d_s8{entry}(" in source and "_rolling" not in source
    assert f".scratch_bytes = {scratch}\n" in source
    assert g.dil_h == 1 and g.stride_h < g.k_h
    fits = _asm_requantizes(p)
    blocks = [all(fits[i:i + 4]) for i in range(0, g.out_c - g.out_c % 4, 4)]
    if name.startswith("raw_sums"):
        assert not all(blocks) and (any(blocks) or name == "raw_sums_m4")
    if name.endswith("partial_raw"):  # the partial block's own constants are not the assembly's
        assert g.out_c % 4 and not all(fits[g.out_c - g.out_c % 4:])
    if name.startswith("pad_beyond"):  # the first window wholly above the image, a new row above it later
        assert g.pad_top > g.k_h
    if name.startswith("pad_beyond_window"):  # the last window wholly below the image
        assert (g.out_h - 1) * g.stride_h - g.pad_top >= g.in_h
    if "wide" in name:
        assert g.out_w > 16
