"""The scratch the planner reserves for a node on CMSIS-NN (kernels/cmsis_nn/_adapters.py) equals what CMSIS-NN's own
*_get_buffer_size functions return, for the larger of the portable C and DSP variants: a host program built
from the library's sources asks them for every layer of a geometry sweep (and of the shared models)."""

from __future__ import annotations

import itertools
import subprocess

import pytest

from micro_relay.kernels.cmsis_nn._adapters import conv2d_buffer_bytes, dense_buffer_bytes, depthwise_conv2d_buffer_bytes
from micro_relay.ops._conv_common import Geometry

PROGRAM = r"""
#include <stdio.h>
#include "arm_nnfunctions.h"

static const int cases[][16] = {
%s
};

int main(void)
{
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
        const int *k = cases[i];
        /* batches, in_h, in_w, in_c, out_h, out_w, out_c, k_h, k_w, filter_c, s_h, s_w, d_h, d_w, pad_t, pad_l */
        const cmsis_nn_dims input = {k[0], k[1], k[2], k[3]};
        const cmsis_nn_dims output = {k[0], k[4], k[5], k[6]};
        const cmsis_nn_dims conv_filter = {k[6], k[7], k[8], k[9]};
        const cmsis_nn_dims dw_filter = {1, k[7], k[8], k[6]};
        const cmsis_nn_dims fc_filter = {k[3], 1, 1, k[6]};
        const cmsis_nn_conv_params conv = {0, 0, {k[11], k[10]}, {k[15], k[14]}, {k[13], k[12]}, {-128, 127}};
        const cmsis_nn_dw_conv_params dw = {0, 0, k[6] / k[3], {k[11], k[10]}, {k[15], k[14]}, {k[13], k[12]},
                                            {-128, 127}};
        printf("%%d %%d %%d %%d %%d %%d\n",
               (int)arm_convolve_wrapper_s8_get_buffer_size(&conv, &input, &conv_filter, &output),
               (int)arm_convolve_wrapper_s8_get_buffer_size_dsp(&conv, &input, &conv_filter, &output),
               (int)arm_depthwise_conv_wrapper_s8_get_buffer_size(&dw, &input, &dw_filter, &output),
               (int)arm_depthwise_conv_wrapper_s8_get_buffer_size_dsp(&dw, &input, &dw_filter, &output),
               (int)arm_fully_connected_s8_get_buffer_size(&fc_filter),
               (int)arm_fully_connected_s8_get_buffer_size_dsp(&fc_filter));
    }
    return 0;
}
"""


def _out(size: int, k: int, stride: int, dilation: int, pad: int) -> int:
    return (size + 2 * pad - (k - 1) * dilation - 1) // stride + 1


def sweep() -> list[tuple[Geometry, Geometry]]:
    """(conv geometry, depthwise geometry with the same window) pairs over the wrappers' decision points:
    1x1 or not, one input row or not, channels times stride a multiple of 4 or not, 3x3 with padding 0, 1
    or 2, dilation, batches."""
    cases = []
    for (kh, kw), (h, w), c, stride, dil, pad, batches, mult in itertools.product(
            ((1, 1), (3, 3), (1, 3), (5, 5), (1, 5)), ((1, 9), (7, 8)), (1, 3, 4, 8, 17), (1, 2), (1, 2),
            (0, 1, 2), (1, 2), (1, 2)):
        out_h, out_w = _out(h, kh, stride, dil, pad), _out(w, kw, stride, dil, pad)
        if out_h < 1 or out_w < 1:
            continue
        conv = Geometry(batches, h, w, c, out_h, out_w, 8, kh, kw, c, stride, stride, dil, dil, pad, pad)
        depthwise = Geometry(batches, h, w, c, out_h, out_w, c * mult, kh, kw, mult, stride, stride, dil, dil, pad,
                             pad)
        cases.append((conv, depthwise))
    return cases


def _row(g: Geometry) -> str:
    return "{" + ", ".join(str(v) for v in (g.batches, g.in_h, g.in_w, g.in_c, g.out_h, g.out_w, g.out_c, g.k_h,
                                             g.k_w, g.filter_c, g.stride_h, g.stride_w, g.dil_h, g.dil_w,
                                             g.pad_top, g.pad_left)) + "}"


def _library_sizes(tmp_path, cmsis_nn_root, host_cmsis_nn, geometries) -> list[list[int]]:
    source = tmp_path / "sizes.c"
    source.write_text(PROGRAM % ",\n".join(_row(g) for g in geometries))
    exe = tmp_path / "sizes"
    subprocess.run(["gcc", "-std=c99", "-O1", "-isystem", str(cmsis_nn_root / "Include"), str(source),
                    str(host_cmsis_nn), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    return [[int(v) for v in line.split()] for line in out.splitlines()]


def test_sweep_matches_cmsis_nn_functions(tmp_path, cmsis_nn_root, host_cmsis_nn):
    cases = sweep()
    geometries = [g for pair in cases for g in pair]
    sizes = _library_sizes(tmp_path, cmsis_nn_root, host_cmsis_nn, geometries)
    assert len(sizes) == len(geometries)
    checked_nonzero = {"conv": 0, "depthwise": 0}
    for index, (conv, depthwise) in enumerate(cases):
        conv_sizes, dw_sizes = sizes[2 * index], sizes[2 * index + 1]
        assert conv2d_buffer_bytes(conv) == max(conv_sizes[0], conv_sizes[1]), conv
        assert depthwise_conv2d_buffer_bytes(depthwise) == max(dw_sizes[2], dw_sizes[3]), depthwise
        assert dense_buffer_bytes() == max(conv_sizes[4], conv_sizes[5])
        checked_nonzero["conv"] += conv_sizes[1] > 0
        checked_nonzero["depthwise"] += dw_sizes[3] > 0
    assert min(checked_nonzero.values()) > 0  # the sweep reaches the paths that need a buffer


@pytest.mark.parametrize("model", ["mlcommons_tiny/kws_ref_model.tflite", "tflite_micro/person_detect.tflite",
                                   "mlcommons_tiny/pretrainedResnet_quant.tflite", "mlcommons_tiny/ad01_int8.tflite"])
def test_shared_model_layers(tmp_path, cmsis_nn_root, host_cmsis_nn, shared_models, model):
    from micro_relay.compiler import prepare_graph
    from micro_relay.ir.registry import get_op

    path = shared_models / model
    if not path.is_file():
        pytest.skip(f"{model} is absent")
    graph = prepare_graph(path)
    layers = [(node.op, get_op(node.op).prepare(graph, node)["geometry"]) for node in graph.nodes
              if node.op in ("nn.conv2d", "nn.depthwise_conv2d")]
    if not layers:
        pytest.skip(f"{model} has no convolution")
    sizes = _library_sizes(tmp_path, cmsis_nn_root, host_cmsis_nn, [g for _, g in layers])
    for (op, g), got in zip(layers, sizes):
        ours = conv2d_buffer_bytes(g) if op == "nn.conv2d" else depthwise_conv2d_buffer_bytes(g)
        want = max(got[0], got[1]) if op == "nn.conv2d" else max(got[2], got[3])
        assert ours == want, (op, g)
